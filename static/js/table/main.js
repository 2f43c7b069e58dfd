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
  // the server-rendered seat list is the no-JavaScript fallback: the app shows a live one
  const seating = document.getElementById("table-seating");
  if (seating) seating.classList.add("is-enhanced");
  const invite = document.getElementById("invite-link");
  if (invite && invite.value) data.invite_link = invite.value;
  const inviteContacts = document.getElementById("invite-contacts");
  if (inviteContacts) data.invite_contacts = inviteContacts.getAttribute("href");
  // a tournament's match: the game-over panel leads back to the tournament, not to a rematch
  const tournament = document.querySelector("[data-tournament-url]");
  if (tournament) data.tournament_url = tournament.dataset.tournamentUrl;
  window.ginTable = new TableApp(root, data);
}

if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", boot);
else boot();
