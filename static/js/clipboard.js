// Copying a text to the clipboard, for every page: the Clipboard API, else the selection of
// ``target`` (an input, or any element) and the old copy command. Resolves true when copied.

export async function copyText(text, target = null) {
  if (navigator.clipboard) {
    try {
      await navigator.clipboard.writeText(text);
      return true;
    } catch (err) {
      // refused (no permission, an insecure page, a page out of focus): the selection below
      // may still work; the reason stays in the console for a report
      console.warn("clipboard: writeText refused:", err && err.name, err && err.message);
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
