// "Copy" buttons: a button with data-copy="<element id>" copies that element's text and says
// so beside itself (a new API token: selecting one by hand on a phone stopped at its hyphen).

function copied(button, text) {
  const note = button.parentElement.querySelector("[data-copy-note]");
  if (note) note.textContent = text;
}

for (const button of document.querySelectorAll("button[data-copy]")) {
  const target = document.getElementById(button.dataset.copy);
  if (!target) continue;
  button.hidden = false;
  button.addEventListener("click", () => {
    const text = target.textContent.trim();
    const done = () => copied(button, "Copied.");
    const failed = () => copied(button, "Could not copy: select the text and copy it.");
    if (navigator.clipboard) {
      navigator.clipboard.writeText(text).then(done, failed);
    } else {
      const range = document.createRange();
      range.selectNodeContents(target);
      const sel = window.getSelection();
      sel.removeAllRanges();
      sel.addRange(range);
      if (document.execCommand && document.execCommand("copy")) done();
      else failed();
    }
  });
}
