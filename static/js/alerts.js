// The alerts settings page (/settings/alerts/): asks the browser for permission to show
// notifications (only when the player clicks "Allow notifications") and plays a sample alert.
import { attention } from "./attention.js";

const box = document.querySelector("[data-alerts-setup]");
if (box) {
  const text = box.querySelector("[data-alerts-permission]");
  const allow = box.querySelector("[data-alerts-allow]");
  const sample = box.querySelector("[data-alerts-test]");
  const show = () => {
    const state = attention().permission();
    text.textContent = {
      granted: "Notifications are allowed in this browser.",
      denied: "This browser blocks notifications from this site: allow them in the site settings of the browser.",
      default: "Notifications need your permission in each browser.",
      unsupported: "This browser cannot show notifications.",
    }[state] || "";
    allow.hidden = state !== "default";
    allow.style.display = allow.hidden ? "none" : ""; // (.button sets a display of its own)
  };
  show();
  allow.addEventListener("click", async () => {
    await attention().requestPermission();
    show();
  });
  sample.addEventListener("click", () => {
    const a = attention();
    // the sample shows every way the saved choices allow, as if the tab were hidden
    const ways = [];
    if (a.prefs.sound && a.beep("turn")) ways.push("a sound");
    if (a.prefs.vibrate && navigator.vibrate && navigator.vibrate([180])) ways.push("a buzz");
    if (a.prefs.notifications && a.permission() === "granted"
        && a.notify("turn", { title: "Your turn", body: "This is how an alert looks.", url: "", tag: "sample" })) {
      ways.push("a notification");
    }
    text.textContent = ways.length ? `You should have had ${ways.join(", ")}.` : "Every alert is turned off in this browser.";
  });
}
