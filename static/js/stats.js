// Mode tabs of the statistics tables: one panel shows at a time (all show without JS).
for (const box of document.querySelectorAll("[data-stat-tabs]")) {
  const list = box.querySelector("[data-stat-tablist]");
  const tabs = [...box.querySelectorAll("[data-stat-tab]")];
  const panels = [...box.querySelectorAll("[data-stat-panel]")];
  if (!list || tabs.length < 2) continue;
  list.hidden = false;
  box.classList.add("stat-tabs-live");
  const select = (i, focus) => {
    tabs.forEach((t, j) => {
      t.setAttribute("aria-selected", String(i === j));
      t.tabIndex = i === j ? 0 : -1;
    });
    panels.forEach((p, j) => { p.hidden = i !== j; });
    if (focus) tabs[i].focus();
  };
  tabs.forEach((t, i) => {
    t.addEventListener("click", () => select(i, false));
    t.addEventListener("keydown", (e) => {
      if (e.key === "ArrowRight") select((i + 1) % tabs.length, true);
      else if (e.key === "ArrowLeft") select((i - 1 + tabs.length) % tabs.length, true);
      else return;
      e.preventDefault();
    });
  });
  select(0, false);
}
