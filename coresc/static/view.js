// coresc HTML view: label filters. Inlined into the page; no network access.
(function () {
  "use strict";
  var sentences = Array.prototype.slice.call(document.querySelectorAll(".s"));
  var buttons = Array.prototype.slice.call(document.querySelectorAll("button.f"));
  var active = new Set();
  var mismatchOnly = false;
  var status = document.getElementById("filter-status");
  var mismatchButton = document.getElementById("only-mismatches");

  function apply() {
    var shown = 0;
    sentences.forEach(function (el) {
      var ok = (active.size === 0 || active.has(el.getAttribute("data-label"))) &&
               (!mismatchOnly || el.classList.contains("x"));
      el.classList.toggle("off", !ok);
      if (ok) { shown += 1; }
    });
    buttons.forEach(function (b) {
      b.setAttribute("aria-pressed", active.has(b.getAttribute("data-label")) ? "true" : "false");
    });
    if (mismatchButton) { mismatchButton.setAttribute("aria-pressed", mismatchOnly ? "true" : "false"); }
    if (status) {
      status.textContent = (active.size === 0 && !mismatchOnly)
        ? "showing all " + sentences.length + " sentences"
        : "showing " + shown + " of " + sentences.length + " sentences";
    }
  }

  buttons.forEach(function (b) {
    b.addEventListener("click", function () {
      var label = b.getAttribute("data-label");
      if (active.has(label)) { active.delete(label); } else { active.add(label); }
      apply();
    });
  });
  var all = document.getElementById("show-all");
  if (all) { all.addEventListener("click", function () { active.clear(); mismatchOnly = false; apply(); }); }
  if (mismatchButton) {
    mismatchButton.addEventListener("click", function () { mismatchOnly = !mismatchOnly; apply(); });
  }
  var codes = document.getElementById("toggle-codes");
  if (codes) {
    codes.addEventListener("click", function () {
      var hidden = document.body.classList.toggle("nocodes");
      codes.setAttribute("aria-pressed", hidden ? "false" : "true");
    });
  }
  apply();

  // a PDF paper's pages: a sentence clicked (or chosen by another script, with the event
  // "coresc:sentence") shows its boxes on its page; a box clicked selects its sentence
  var pane = document.getElementById("pdf-pages");
  if (!pane) { return; }
  var lit = [];
  var chosen = null;
  function byId(sel, sid) { return sel + '[data-sid="' + CSS.escape(sid) + '"]'; }
  function showBoxes(sid) {
    lit.forEach(function (b) { b.classList.remove("on"); });
    lit = Array.prototype.slice.call(pane.querySelectorAll(byId(".bx", sid)));
    lit.forEach(function (b) { b.classList.add("on"); });
    if (!lit.length) { return; }
    var box = lit[0];  // scroll the pane only, never the text beside it
    var top = box.parentElement.offsetTop + box.offsetTop;
    if (top < pane.scrollTop || top + box.offsetHeight > pane.scrollTop + pane.clientHeight) {
      pane.scrollTop = top - pane.clientHeight / 3;
    }
  }
  function choose(el) {
    if (chosen) { chosen.classList.remove("sel"); }
    chosen = el;
    el.classList.add("sel");
    showBoxes(el.getAttribute("data-sid"));
  }
  sentences.forEach(function (el) { el.addEventListener("click", function () { choose(el); }); });
  document.addEventListener("coresc:sentence", function (e) {
    var el = document.querySelector(byId(".s", e.detail));
    if (el) { choose(el); }
  });
  pane.addEventListener("click", function (e) {
    var box = e.target.closest(".bx");
    var el = box && document.querySelector(byId(".s", box.getAttribute("data-sid")));
    if (!el) { return; }
    el.click();  // the sentence's own handlers (the review selects it) run too
    el.scrollIntoView({ block: "center" });
  });
}());
