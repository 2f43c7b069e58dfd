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

  if (document.readyState === "loading") {
    document.addEventListener("DOMContentLoaded", setUpNav);
  } else {
    setUpNav();
  }
})();
