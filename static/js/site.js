// Site-wide behaviour, loaded by every page (classic script in <head>, kept tiny).
// 1. Mark the document as scripted at once, so the CSS can collapse the phone menu
//    without a flash; without JavaScript the menu simply stays open.
// 2. The phone menu button: toggles the links, reports its state through aria-expanded,
//    closes on Escape and returns focus to the button.
// 3. A time zone select's hint (below).
// 4. The theme: light, dark, or as the device (the footer's Theme choice, kept per device).
// 5. A table wider than its box (a score sheet on a phone) shows a shadow on each side that
//    scrolls.
// 6. The settings tabs show the page's own tab on a phone.
// 7. A form's "Rated" and "Private" boxes: a private game is casual, so ticking one unticks
//    the other (the invitation form ticks Private first, and Rated beside it was refused).
// 8. A create form's hidden "once" key (core/formonce.py) is new when the browser shows the
//    page again from its back-forward cache: that page is another form, not the same one
//    sent twice.
(function () {
  "use strict";
  document.documentElement.classList.add("js");

  // 4. The theme: the dark sheet (<link id="dark-theme">) follows the device unless this
  //    device chose Light or Dark in the footer. Set here, in <head>, before the first paint.
  var THEME_MEDIA = { auto: "(prefers-color-scheme: dark)", light: "not all", dark: "all" };
  function storedTheme() {
    try {
      var t = window.localStorage.getItem("gin.theme");
      return THEME_MEDIA[t] ? t : "auto";
    } catch (err) {
      return "auto";
    }
  }
  function applyTheme(theme) {
    var sheet = document.getElementById("dark-theme");
    if (sheet) sheet.media = THEME_MEDIA[theme] || THEME_MEDIA.auto;
  }
  applyTheme(storedTheme());

  function setUpThemeChoice() {
    var box = document.querySelector("[data-theme-choice]");
    var select = box && box.querySelector("select");
    if (!select) return;
    select.value = storedTheme();
    box.hidden = false;
    select.addEventListener("change", function () {
      var theme = THEME_MEDIA[select.value] ? select.value : "auto";
      try {
        if (theme === "auto") window.localStorage.removeItem("gin.theme");
        else window.localStorage.setItem("gin.theme", theme);
      } catch (err) {
        /* private mode: the choice lasts for this page */
      }
      applyTheme(theme);
    });
  }

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
    // Tabbing on past the last link left the menu open over the page, and Escape no longer
    // closed it: focus leaving the menu closes it.
    nav.addEventListener("focusout", function (event) {
      var next = event.relatedTarget;
      if (next && !nav.contains(next) && toggle.getAttribute("aria-expanded") === "true") {
        setOpen(false);
      }
    });
  }

  // 6. The settings tabs scroll sideways on a phone: the page's own tab is brought into view
  //    ("Profile Alerts API and bots Ema…" hid the Password page's tab).
  function setUpSettingsNav() {
    var list = document.querySelector(".settings-nav ul");
    var current = list && list.querySelector("[aria-current=page]");
    if (!current || list.scrollWidth <= list.clientWidth) return;
    var item = current.closest("li") || current;
    var from = item.getBoundingClientRect().left - list.getBoundingClientRect().left;
    list.scrollLeft = Math.max(0, list.scrollLeft + from - (list.clientWidth - item.offsetWidth) / 2);
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

  // 4. The device's time zone in the "tz" cookie: pages for visitors and the account a
  //    sign-up makes show local times (accounts/middleware.py); a year, renewed each visit.
  function rememberTimeZone() {
    if (!window.Intl || !Intl.DateTimeFormat) return;
    var zone = Intl.DateTimeFormat().resolvedOptions().timeZone;
    // IANA names ("America/Argentina/Buenos_Aires") are valid cookie text as they are
    if (!zone || !/^[A-Za-z0-9_\/+-]{1,64}$/.test(zone)) return;
    document.cookie = "tz=" + zone + "; path=/; max-age=31536000; samesite=lax";
  }
  rememberTimeZone();

  // 5. Hollywood's three games on a phone showed game 1 alone, with nothing to say that games
  //    2 and 3 were a swipe away: a shadow now stands on each side with more to see. Every box
  //    that scrolls sideways (.table-scroll: tables, the tournament bracket; [data-scroll-cue]:
  //    the settings tabs on a phone, whose last ones were cut with nothing to say so) is
  //    marked here, and a [data-scroll-cue="down"] with more below (a table's result panel); a page that redraws a part calls window.ginScrollCues(part) for the boxes
  //    it drew.
  var SCROLLERS = ".table-scroll, [data-scroll-cue]";
  function markScroll(box) {
    // (downwards only, for a box marked data-scroll-cue="down": a hand's result on a phone
    // showed half of the first hand, the rest under its buttons with nothing to say so)
    if (box.getAttribute("data-scroll-cue") === "down") {
      var below = box.scrollHeight - box.clientHeight;
      box.classList.toggle("scroll-down", below > 1 && box.scrollTop < below - 1);
      return;
    }
    var more = box.scrollWidth - box.clientWidth;
    box.classList.toggle("scroll-left", more > 1 && box.scrollLeft > 1);
    box.classList.toggle("scroll-right", more > 1 && box.scrollLeft < more - 1);
  }
  var watched = [];
  // (a table filled in later, the replay's sheet, changes size: so does what scrolls)
  var resized = window.ResizeObserver ? new ResizeObserver(function (entries) {
    entries.forEach(function (entry) {
      var box = entry.target.closest(SCROLLERS);
      if (box) markScroll(box);
    });
  }) : null;
  if (!resized) {
    window.addEventListener("resize", function () { watched.forEach(markScroll); });
  }
  function setUpScrollCues(root) {
    // boxes a redraw removed are let go
    watched = watched.filter(function (box) {
      if (box.isConnected) return true;
      if (resized) {
        resized.unobserve(box);
        if (box.firstElementChild) resized.unobserve(box.firstElementChild);
      }
      return false;
    });
    var boxes = Array.prototype.slice.call((root || document).querySelectorAll(SCROLLERS));
    if (root && root.matches && root.matches(SCROLLERS)) boxes.push(root); // (the part itself)
    boxes.forEach(function (box) {
      if (watched.indexOf(box) < 0) {
        watched.push(box);
        box.addEventListener("scroll", function () { markScroll(box); }, { passive: true });
        if (resized) {
          resized.observe(box);
          if (box.firstElementChild) resized.observe(box.firstElementChild);
        }
      }
      markScroll(box);
    });
  }
  window.ginScrollCues = setUpScrollCues;

  // 7. Rated or private: ticking one of a form's two boxes unticks the other.
  document.addEventListener("change", function (event) {
    var box = event.target;
    if (!box || box.type !== "checkbox" || !box.checked || !box.form) return;
    var other = { rated: "private", private: "rated" }[box.name];
    var twin = other && box.form.elements[other];
    if (twin && twin.type === "checkbox" && twin.checked) twin.checked = false;
  });

  // 8. A page shown again from the back-forward cache gets new once keys.
  window.addEventListener("pageshow", function (event) {
    if (!event.persisted || !window.crypto || !window.crypto.getRandomValues) return;
    var fields = document.querySelectorAll("input[type=hidden][name=once]");
    for (var i = 0; i < fields.length; i++) {
      var bytes = window.crypto.getRandomValues(new Uint8Array(16));
      fields[i].value = Array.prototype.map.call(bytes, function (b) {
        return ("0" + b.toString(16)).slice(-2);
      }).join("");
    }
  });

  function setUp() {
    setUpNav();
    setUpTimeZoneHint();
    setUpThemeChoice();
    setUpScrollCues(document);
    setUpSettingsNav();
  }
  // a choice made in another tab reaches this one too
  window.addEventListener("storage", function (event) {
    if (event.key !== "gin.theme" && event.key !== null) return;
    applyTheme(storedTheme());
    var select = document.querySelector("[data-theme-choice] select");
    if (select) select.value = storedTheme();
  });

  if (document.readyState === "loading") {
    document.addEventListener("DOMContentLoaded", setUp);
  } else {
    setUp();
  }
})();
