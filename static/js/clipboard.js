// Copying a text to the clipboard, for every page: the Clipboard API, else the selection of
// ``target`` (an input, or any element) and the old copy command. Resolves true when copied.

// How long the Clipboard API may take before the selection is tried instead: a write can
// stay pending without an answer (a CI run's Chromium left "Copy the token" unanswered for
// 30 s, with nothing in the console), and the button must say something.
export const WRITE_WAIT_MS = 2000;

export async function copyText(text, target = null, wait = WRITE_WAIT_MS) {
  if (navigator.clipboard) {
    let timer;
    const late = new Promise((resolve) => { timer = setTimeout(() => resolve("late"), wait); });
    try {
      const done = await Promise.race([navigator.clipboard.writeText(text).then(() => "written"), late]);
      if (done === "written") return true;
      console.warn(`clipboard: writeText has not answered in ${wait} ms`);
    } catch (err) {
      // refused (no permission, an insecure page, a page out of focus): the selection below
      // may still work; the reason stays in the console for a report
      console.warn("clipboard: writeText refused:", err && err.name, err && err.message);
    } finally {
      clearTimeout(timer);
    }
  }
  if (!target) return false;
  if (typeof target.select === "function") target.select();
  else {
    const range = document.createRange();
    range.selectNodeContents(target);
    const sel = window.getSelection();
    sel.removeAllRanges();
    sel.addRange(range);
  }
  return Boolean(document.execCommand && document.execCommand("copy"));
}
