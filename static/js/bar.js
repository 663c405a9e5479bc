/* The board's clock bar, which stays at the top of a wide screen (app.css: sticky from 48rem;
   on a phone it scrolls away). In a fight only its foot stays in sight: the turn and its
   pass, the last tap's line and Deshacer; its top (the clock, the time buttons, the order's
   line and its tools) scrolls away, the bar sticking at a negative top (--bar-stick). What
   it holds of the window once stuck is what the rest keeps clear of: the page's
   scroll-padding (a control that gets the focus) and --bar (app.css: scroll-margin-top). */

// How far the bar's top goes above the window once stuck: down to the fight's turn line,
// keeping the bar's own padding above it.
function above(bar) {
  const head = bar.querySelector("#fight .fight-head");
  if (!head) return 0;
  const pad = parseFloat(getComputedStyle(bar).paddingTop) || 0;
  return Math.max(0, head.getBoundingClientRect().top - bar.getBoundingClientRect().top - pad);
}

// The order is one line that scrolls sideways: the turn going on and the next in sight.
function turnInSight(bar) {
  const list = bar.querySelector(".fight-order");
  const chip = list && list.querySelector(".is-current");
  if (!chip) return;
  const room = list.getBoundingClientRect();
  const first = chip.getBoundingClientRect();
  const last = (chip.nextElementSibling || chip).getBoundingClientRect();
  if (first.left < room.left || last.right > room.right) {
    list.scrollLeft += first.left - room.left - Math.min(48, room.width / 4);
  }
}

// Sets --bar-stick, the page's scroll-padding and --bar; the height the bar holds.
export function placeBar() {
  const bar = document.getElementById("clockbar");
  const root = document.documentElement.style;
  if (!bar) return 0;
  turnInSight(bar);
  if (getComputedStyle(bar).position !== "sticky") {
    bar.style.removeProperty("--bar-stick");
    set(root, "scrollPaddingTop", "");
    setVar(root, "--bar", "0px");
    return 0;
  }
  const hidden = above(bar);
  setVar(bar.style, "--bar-stick", `${-hidden}px`);
  const held = bar.offsetHeight - hidden;
  set(root, "scrollPaddingTop", `${held + 8}px`);
  setVar(root, "--bar", `${held}px`);
  return held;
}

// A style is written only when it changes: a write, even of the same value, makes the
// next read of the page's layout lay it out again.
function set(style, name, value) { if (style[name] !== value) style[name] = value; }
function setVar(style, name, value) {
  if (style.getPropertyValue(name) !== value) style.setProperty(name, value);
}
