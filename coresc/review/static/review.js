// coresc review: keyboard-first correction of a paper's labels. Every decision is sent
// to the server at once (in order, one at a time), which saves it before it answers.
"use strict";
(function () {
  const $ = (id) => document.getElementById(id);
  const data = JSON.parse($("rv-data").textContent);
  const S = data.sentences;
  const spans = [];
  document.querySelectorAll(".s[data-sid]").forEach((el) => {
    spans[Number(el.getAttribute("data-sid"))] = el;
  });
  const keyToLabel = {};
  Object.keys(data.keys).forEach((lab) => { keyToLabel[data.keys[lab]] = lab; });
  const base = "../api/papers/" + data.paper;
  let cur = S.findIndex((s) => !s.d);
  if (cur < 0) { cur = 0; }
  let queue = Promise.resolve();
  let pending = 0;

  function shown(j) {
    return S[j].d ? S[j].d.labels.slice() : S[j].m.map((x) => x[0]);
  }
  function styleOf(lab) {
    const st = data.styles[lab] || ["#ffffff", "none"];
    return "--c:" + st[0] + ";--u:" + (st[1] === "none" ? "none" : "underline") +
      ";--us:" + (st[1] === "none" ? "solid" : st[1]);
  }
  function scoreOf(j, lab) {
    const hit = S[j].m.find((x) => x[0] === lab);
    return hit ? " " + hit[1].toFixed(2) : "";
  }

  function render(j) {
    const el = spans[j];
    if (!el) { return; }
    const labels = shown(j);
    el.setAttribute("data-label", labels[0] || "");
    el.setAttribute("style", styleOf(labels[0]));
    el.querySelector(".c").textContent = labels[0] || "–";
    el.querySelectorAll(".b, .g, .w").forEach((b) => b.remove());
    labels.slice(1).forEach((lab) => {
      const b = document.createElement("span");
      b.className = "b";
      b.setAttribute("data-label", lab);
      b.setAttribute("style", styleOf(lab));
      b.textContent = lab + (S[j].d ? "" : scoreOf(j, lab));
      el.appendChild(b);
    });
    el.classList.toggle("rv-unc", S[j].u);
    el.classList.toggle("rv-done", !!S[j].d);
    el.classList.toggle("rv-changed", !!S[j].d && S[j].d.action === "changed");
    const d = S[j].d;
    el.setAttribute("title", "model: " + S[j].m.map((x) => x[0] + " " + x[1].toFixed(3)).join(", ") +
      (d ? " | " + d.action + " by " + data.annotator + " " + d.at : " | not reviewed") +
      " | sentence " + j);
  }

  function panel() {
    const j = cur, d = S[j].d;
    const parts = ["<div>sentence " + (j + 1) + " of " + S.length +
      (S[j].u ? " · <b>uncertain</b>" : "") + "</div>",
      '<div class="rv-labels-now" id="rv-labels-now">' + shown(j).join(" · ") + "</div>",
      "<div>model: " + S[j].m.map((x) => x[0] + " " + x[1].toFixed(2)).join(", ") + "</div>",
      "<div id=\"rv-state\">" + (d ? d.action + " " + d.at : "not reviewed") + "</div>",
      "<div>novelty: <b>" + ((d && d.novelty) || "none") + "</b> · advantage: <b>" +
        ((d && d.advantage) || "none") + "</b></div>",
      '<div><input id="rv-comment" placeholder="comment (i, Enter saves)" value=""></div>'];
    $("rv-current").innerHTML = parts.join("");
    $("rv-comment").value = (d && d.comment) || "";
  }

  function select(j, scroll) {
    if (j < 0 || j >= S.length) { return; }
    if (spans[cur]) { spans[cur].classList.remove("rv-cur"); }
    cur = j;
    if (spans[j]) {
      spans[j].classList.add("rv-cur");
      if (scroll !== false) { spans[j].scrollIntoView({ block: "center" }); }
    }
    panel();
  }

  function progress(p) {
    const mine = p.papers[data.paper], all = p.all;
    $("rv-progress").textContent = "this paper: " + mine.reviewed + "/" + mine.total +
      " reviewed, " + mine.changed + " changed · all papers: " + all.reviewed + "/" +
      all.total + " reviewed, " + all.changed + " changed";
  }

  function saved(text, isError) {
    const el = $("rv-saved");
    el.textContent = text;
    el.className = isError ? "error" : "";
  }

  // requests go one at a time, in the order the keys were pressed
  function send(path, body, then) {
    pending += 1;
    document.body.setAttribute("data-pending", String(pending));
    saved("saving…", false);
    queue = queue.then(() => fetch(base + path, {
      method: "POST", credentials: "same-origin",
      headers: { "Content-Type": "application/json", "X-Coresc-Review": "1" },
      body: JSON.stringify(body),
    }).then((r) => r.json().then((answer) => {
      if (!r.ok) { throw new Error(answer.error || r.statusText); }
      then(answer);
      progress(answer.progress);
      saved("saved " + new Date().toLocaleTimeString(), false);
    })).catch((err) => {
      saved("NOT SAVED: " + err.message, true);
      document.body.setAttribute("data-error", err.message);
    }).finally(() => {
      pending -= 1;
      document.body.setAttribute("data-pending", String(pending));
    }));
  }

  function decide(j, body) {
    send("/sentences/" + j, body, (answer) => {
      S[j].d = answer.decision;
      render(j);
      if (j === cur) { panel(); }
    });
  }

  function setLabels(labels, extra) {
    const j = cur, d = S[j].d || {};
    const body = Object.assign({ labels: labels, novelty: d.novelty || null,
      advantage: d.advantage || null, comment: d.comment || "" }, extra || {});
    S[j].d = Object.assign({}, d, { labels: labels, action: "changed", at: "…" }, extra || {});
    render(j);
    panel();
    decide(j, body);
  }

  function accept() {
    const j = cur;
    if (!S[j].d) { S[j].d = { labels: shown(j), action: "confirmed", at: "…" }; }
    render(j);
    decide(j, { accept: true });
    select(Math.min(j + 1, S.length - 1));
  }

  function primary(lab) {
    const now = shown(cur);
    if (now[0] === lab && S[cur].d) { return; }
    setLabels([lab].concat(now.slice(1).filter((x) => x !== lab)));
  }

  function secondary(lab) {
    const labels = shown(cur);
    if (labels[0] === lab) { return; }
    const at = labels.indexOf(lab);
    if (at > 0) { labels.splice(at, 1); } else if (labels.length < 3) { labels.push(lab); } else { return; }
    setLabels(labels);
  }

  function cycle(name, values) {
    const d = S[cur].d || {};
    const now = d[name] || null;
    const next = now === null ? values[0] : (values.indexOf(now) + 1 < values.length ?
      values[values.indexOf(now) + 1] : null);
    const extra = {};
    extra[name] = next;
    setLabels(shown(cur), extra);
  }

  function undo() {
    send("/undo", {}, (answer) => {
      if (answer.sentence === null) { saved("nothing to undo", false); return; }
      S[answer.sentence].d = answer.decision;
      render(answer.sentence);
      select(answer.sentence);
    });
  }

  function nextUncertain() {
    for (let k = 1; k <= S.length; k += 1) {
      const j = (cur + k) % S.length;
      if (S[j].u && !S[j].d) { select(j); return; }
    }
    saved("no unreviewed uncertain sentence left in this paper", false);
  }

  function adapt() {
    const status = $("rv-adapt-status");
    status.className = "";
    status.textContent = "adapting the model…";
    fetch("../api/adapt", { method: "POST", credentials: "same-origin",
      headers: { "Content-Type": "application/json", "X-Coresc-Review": "1" }, body: "{}" })
      .then((r) => r.json()).then(poll);
  }
  function poll(job) {
    const status = $("rv-adapt-status");
    if (job.error && !job.state) { status.textContent = job.error; status.className = "error"; return; }
    status.textContent = job.state + (job.message ? ": " + job.message : "");
    status.className = job.state === "failed" ? "error" : "";
    if (job.state === "running") {
      setTimeout(() => fetch("../api/adapt", { credentials: "same-origin" })
        .then((r) => r.json()).then(poll), 1000);
    } else if (job.state === "done") {
      setTimeout(() => window.location.reload(), 1500);
    }
  }

  function goPaper(k) {
    if (k >= 0 && k < data.papers) { window.location.href = String(k); }
  }

  document.addEventListener("keydown", (e) => {
    const t = e.target;
    if (t && t.id === "rv-comment") {
      if (e.key === "Enter") {
        e.preventDefault();
        setLabels(shown(cur), { comment: t.value });
        t.blur();
      } else if (e.key === "Escape") { t.value = (S[cur].d && S[cur].d.comment) || ""; t.blur(); }
      return;
    }
    if (e.altKey || e.metaKey || (e.ctrlKey && e.key !== "z")) { return; }
    const key = e.key;
    let done = true;
    if (key === "Enter" || key === " ") { accept(); }
    else if (key === "z") { undo(); }
    else if (key === "j" || key === "ArrowDown") { select(cur + 1); }
    else if (key === "k" || key === "ArrowUp") { select(cur - 1); }
    else if (key === "n") { nextUncertain(); }
    else if (key === "e") { cycle("novelty", data.novelty); }
    else if (key === "a") { cycle("advantage", data.advantage); }
    else if (key === "i") { $("rv-comment").focus(); }
    else if (key === "Backspace") { const l = shown(cur); if (l.length > 1) { setLabels(l.slice(0, -1)); } }
    else if (key === "[") { goPaper(data.paper - 1); }
    else if (key === "]") { goPaper(data.paper + 1); }
    else if (key === "U") { adapt(); }
    else if (key === "?") { const km = $("rv-keymap"); km.open = !km.open; }
    else if (keyToLabel[key]) { primary(keyToLabel[key]); }
    else if (e.shiftKey && keyToLabel[key.toLowerCase()]) { secondary(keyToLabel[key.toLowerCase()]); }
    else { done = false; }
    if (done) { e.preventDefault(); }
  });

  // the mouse: a click selects a sentence; label buttons set (shift: add) labels
  spans.forEach((el, j) => el.addEventListener("click", () => select(j, false)));
  const buttons = $("rv-buttons");
  data.labels.forEach((lab) => {
    const b = document.createElement("button");
    b.type = "button";
    b.setAttribute("style", styleOf(lab));
    b.title = data.names[lab] + " (" + data.keys[lab] + "; shift-click: secondary)";
    b.textContent = lab;
    b.addEventListener("click", (e) => {
      b.blur();  // or Enter on the focused button would click it again
      if (e.shiftKey) { secondary(lab); } else { primary(lab); }
    });
    buttons.appendChild(b);
  });
  [["accept ⏎", accept], ["undo", undo], ["next uncertain", nextUncertain]].forEach((pair) => {
    const b = document.createElement("button");
    b.type = "button";
    b.textContent = pair[0];
    b.addEventListener("click", () => { b.blur(); pair[1](); });
    buttons.appendChild(b);
  });
  $("rv-adapt").addEventListener("click", () => { $("rv-adapt").blur(); adapt(); });

  S.forEach((_, j) => render(j));
  progress(data.progress);
  select(cur, cur > 0);
  fetch("../api/adapt", { credentials: "same-origin" }).then((r) => r.json()).then((job) => {
    if (job.state === "running") { poll(job); }
  }).catch(() => {});
  document.body.setAttribute("data-ready", "1");
}());
