// Site-wide behaviour, loaded by every page (classic script in <head>, kept tiny).
// 1. Mark the document as scripted at once, so the CSS can collapse the phone menu
//    without a flash; without JavaScript the menu simply stays open.
// 2. The phone menu button: toggles the links, reports its state through aria-expanded,
//    closes on Escape and returns focus to the button.
(function () {
  "use strict";
  document.documentElement.classList.add("js");

  function setUpNav() {
    var nav = document.querySelector("[data-nav]");
    var toggle = nav && nav.querySelector("[data-nav-toggle]");
    if (!toggle) return;
    function setOpen(open) {
      toggle.setAttribute("aria-expanded", open ? "true" : "false");
      nav.classList.toggle("nav-open", open);
    }
    toggle.addEventListener("click", function () {
      setOpen(toggle.getAttribute("aria-expanded") !== "true");
    });
    nav.addEventListener("keydown", function (event) {
      if (event.key === "Escape" && toggle.getAttribute("aria-expanded") === "true") {
        setOpen(false);
        toggle.focus();
      }
    });
  }

  // 3. A time zone <select data-time-zone-select> gets a button offering the device's own
  //    zone when it differs from the selected one (and is in the list).
  function setUpTimeZoneHint() {
    var select = document.querySelector("select[data-time-zone-select]");
    if (!select || !window.Intl || !Intl.DateTimeFormat) return;
    var zone = Intl.DateTimeFormat().resolvedOptions().timeZone;
    if (!zone || select.value === zone) return;
    var option = Array.prototype.find.call(select.options, function (o) { return o.value === zone; });
    if (!option) return;
    var button = document.createElement("button");
    button.type = "button";
    button.className = "button button-secondary button-small time-zone-hint";
    button.textContent = "Use this device's time zone (" + zone.replace(/_/g, " ") + ")";
    button.addEventListener("click", function () {
      select.value = zone;
      select.dispatchEvent(new Event("change", { bubbles: true }));
      button.remove();
      select.focus();
    });
    select.insertAdjacentElement("afterend", button);
  }

  function setUp() {
    setUpNav();
    setUpTimeZoneHint();
  }

  if (document.readyState === "loading") {
    document.addEventListener("DOMContentLoaded", setUp);
  } else {
    setUp();
  }
})();
