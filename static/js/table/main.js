// Entry point of the table page (templates/games/table.html): reads the page's data and
// starts the table app in #table-app.
import { TableApp } from "./app.js";

function boot() {
  const root = document.getElementById("table-app");
  const dataEl = document.getElementById("table-data");
  if (!root || !dataEl) return;
  let data;
  try {
    data = JSON.parse(dataEl.textContent);
  } catch (err) {
    root.textContent = "The table could not be loaded. Please reload the page.";
    return;
  }
  document.documentElement.classList.add("js-table");
  const seating = document.getElementById("table-seating");
  if (seating) seating.classList.add("is-enhanced");
  window.ginTable = new TableApp(root, data);
}

if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", boot);
else boot();
