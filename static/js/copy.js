// "Copy" buttons: a button with data-copy="<element id>" copies that element's text and says
// so beside itself (a new API token: selecting one by hand on a phone stopped at its hyphen).

import { copyText } from "./clipboard.js";

function copied(button, text) {
  const note = button.parentElement.querySelector("[data-copy-note]");
  if (note) note.textContent = text;
}

for (const button of document.querySelectorAll("button[data-copy]")) {
  const target = document.getElementById(button.dataset.copy);
  if (!target) continue;
  button.hidden = false;
  button.addEventListener("click", async () => {
    const ok = await copyText(target.textContent.trim(), target);
    copied(button, ok ? "Copied." : "Could not copy: select the text and copy it.");
  });
}
