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
}());
