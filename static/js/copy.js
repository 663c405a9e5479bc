/* Copy buttons: a tap copies the text of the element a button names (data-copy, an id) and
   says so on the button for a moment. Without the clipboard API the text is selected. */
(() => {
  "use strict";
  document.addEventListener("click", async (event) => {
    const button = event.target.closest("[data-copy]");
    if (!button) return;
    const source = document.getElementById(button.dataset.copy);
    if (!source) return;
    const text = "value" in source ? source.value : source.textContent.trim();
    try {
      await navigator.clipboard.writeText(text);
    } catch (error) {
      if (source.select) source.select();
      return;
    }
    const label = button.innerHTML;
    button.textContent = button.dataset.copied || "✓";
    setTimeout(() => { button.innerHTML = label; }, 1500);
  });
})();
