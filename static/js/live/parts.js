// This page's rendering of a change: the parts the stream carried, or the page's own.

import { holding, news } from "./answers.js";

// The parts `names` of a change, joined, when the stream carried every one; else null
// (the page fetches its own).
export function given(detail, names) {
  const carried = detail.parts;
  if (!carried || !names.every((name) => typeof carried[name] === "string")) return null;
  return names.map((name) => carried[name]).join("");
}

// GET `url` for the PJ named in `detail` (or all): {status, html}, or null when one of
// the page's own actions went out meanwhile (the answer may be older than that action's:
// the news is asked again once it is answered).
export async function fetchParts(url, detail) {
  let query = detail.all ? "all=1" : (detail.pj || []).map((id) => `pj=${id}`).join("&");
  if (detail.foes) query += "&foes=1";
  const response = await fetch(`${url}?${query}`, {
    headers: { "HX-Request": "true" },
    credentials: "same-origin",
    cache: "no-store",
  });
  const html = response.ok ? await response.text() : "";
  if (holding()) {
    news(detail);
    return null;
  }
  return { status: response.status, html };
}

// Each part of a refresh (an element with the id of what it stands for) with the
// element on the page it stands for; parts with nothing to stand for are left out.
export function parts(html) {
  const template = document.createElement("template");
  template.innerHTML = html;
  return [...template.content.children]
    .map((part) => [part.id && document.getElementById(part.id), part])
    .filter(([old]) => old);
}
