// coresc review: keyboard-first correction of a paper's labels. Every decision is sent
// to the server at once (in order, one at a time), which saves it before it answers.
// A sentence shows as reviewed only once the server has said it saved the decision: a
// decision the server did not answer stays queued, marked unsaved, and is sent again
// until the server answers (a restarted `coresc review` takes it).
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
  // an adjudication shows only the disagreements (sentences with two choices, c)
  const adj = data.adjudicating.length === 2;
  const listed = (j) => !adj || !!S[j].c;
  let cur = S.findIndex((s, j) => !s.d && listed(j));
  if (cur < 0) { cur = Math.max(0, S.findIndex((s, j) => listed(j))); }
  S.forEach((s) => { s.ok = s.d; });  // s.d: what the page shows; s.ok: what is saved
  const queue = [];  // requests not yet answered, in the order the keys were pressed
  let sending = false, offline = false, retry = null, lost = "";
  const RETRY_MS = 2000;

  // the labels a decision gives: the person's, else the model's primary only (its
  // secondary labels are suggestions until the person takes them)
  function shown(j) {
    return S[j].d ? S[j].d.labels.slice() : S[j].m.slice(0, 1).map((x) => x[0]);
  }
  function suggested(j) {
    return S[j].d ? [] : S[j].m.slice(1).map((x) => x[0]);
  }
  function waiting(j) {
    return queue.some((q) => q.j === j);
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

  // a decision's labels as the page writes them: [] is a sentence without a CoreSC label
  function labelText(labels) {
    return labels.length ? labels.join(" · ") : "no label";
  }

  function choiceText(j) {
    return S[j].c.map((c, k) => (k + 1) + " " + data.adjudicating[k] + ": " +
      labelText(c)).join(" | ");
  }

  function step(from, dir) {
    for (let k = from + dir; k >= 0 && k < S.length; k += dir) {
      if (listed(k)) { return k; }
    }
    return from;
  }

  function badge(cls, lab, text) {
    const b = document.createElement("span");
    b.className = cls;
    b.setAttribute("data-label", lab);
    b.setAttribute("style", styleOf(lab));
    b.textContent = text;
    return b;
  }

  function render(j) {
    const el = spans[j];
    if (!el) { return; }
    const labels = shown(j);
    el.setAttribute("data-label", labels[0] || "");
    el.setAttribute("style", styleOf(labels[0]));
    document.querySelectorAll('.bx[data-sid="' + j + '"]').forEach((b) => {  // its page boxes
      b.style.setProperty("--c", el.style.getPropertyValue("--c"));
      b.setAttribute("data-label", labels[0] || "");
    });
    el.querySelector(".c").textContent = labels[0] ||
      (S[j].d ? labelText([]) : S[j].c ? choiceText(j) : "–");
    el.querySelectorAll(".b, .g, .w").forEach((b) => b.remove());
    labels.slice(1).forEach((lab) => { el.appendChild(badge("b", lab, lab)); });
    suggested(j).forEach((lab) => {
      el.appendChild(badge("b rv-sugg", lab, lab + scoreOf(j, lab) + "?"));
    });
    const d = S[j].d, wait = waiting(j);
    el.classList.toggle("rv-unc", S[j].u);
    el.classList.toggle("rv-done", !!d && !wait);
    el.classList.toggle("rv-changed", !!d && !wait && d.action === "changed");
    el.classList.toggle("rv-wait", wait && !offline);
    el.classList.toggle("rv-unsaved", wait && offline);
    el.setAttribute("title", "model: " + S[j].m.map((x) => x[0] + " " + x[1].toFixed(3)).join(", ") +
      (wait ? " | NOT SAVED yet" : d ? " | " + d.action + " by " + data.annotator + " " + d.at :
        " | not reviewed") + " | sentence " + j);
  }

  function panel() {
    const j = cur, d = S[j].d;
    const parts = ["<div>sentence " + (j + 1) + " of " + S.length +
      (S[j].u ? (adj ? " · <b>disagreement</b>" : " · <b>uncertain</b>") : "") + "</div>",
      S[j].c ? S[j].c.map((c, k) => '<div class="rv-choice"><kbd>' + (k + 1) + "</kbd> " +
        data.adjudicating[k] + ": <b>" + labelText(c) + "</b></div>").join("") : "",
      '<div class="rv-labels-now" id="rv-labels-now">' +
        (d ? labelText(d.labels) : shown(j).join(" · ")) + "</div>",
      "<div>model: " + S[j].m.map((x) => x[0] + " " + x[1].toFixed(2)).join(", ") + "</div>",
      suggested(j).length ? "<div>the model suggests " + suggested(j).join(", ") +
        " as secondary: Shift + its letter takes it; Enter confirms the primary only</div>" : "",
      "<div id=\"rv-state\">" + (waiting(j) ? "<b class=\"error\">not saved yet</b>" :
        d ? d.action + " " + d.at : "not reviewed") + "</div>",
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
      document.dispatchEvent(new CustomEvent("coresc:sentence", { detail: String(j) }));
    }
    panel();
  }

  function progress(p) {
    const mine = p.papers[data.paper], all = p.all;
    const el = $("rv-progress"), several = p.papers.length > 1;
    // short in the bar, which keeps one line; the whole sentence on hover
    el.textContent = mine.reviewed + "/" + mine.total + " reviewed, " + mine.changed +
      " changed" + (several ? " · all papers " + all.reviewed + "/" + all.total : "");
    el.title = "this paper: " + mine.reviewed + "/" + mine.total + " reviewed, " +
      mine.changed + " changed · all papers: " + all.reviewed + "/" + all.total +
      " reviewed, " + all.changed + " changed";
    const finished = mine.total > 0 && mine.reviewed === mine.total;
    $("rv-finished").hidden = !finished;
    document.body.classList.toggle("rv-finished", finished);
  }

  // the bar has one line and keeps naming the model: an error shows there short (whole
  // on hover), and whole in the panel's alert
  function saved(text, isError, short) {
    const el = $("rv-saved");
    el.textContent = short || text;
    el.title = text;
    el.className = isError ? "error" : "";
    $("rv-alert").textContent = isError ? text : "";
    $("rv-alert").hidden = !isError;
  }

  // what waits: the sentences whose decisions wait (a label typed, then a secondary, is
  // one sentence's decision in two requests), and the undos
  function decidedWaiting() {
    return new Set(queue.filter((q) => q.j !== null).map((q) => q.j)).size;
  }
  function waitingNow() {
    const undos = queue.filter((q) => q.j === null).length;
    return decidedWaiting() + " decision(s)" + (undos ? " and " + undos + " undo(s)" : "");
  }

  // the alert counts what waits now, not what waited when the server stopped answering
  function notSaved() {
    const what = waitingNow();
    saved("NOT SAVED: " + what + " wait (" + lost + "). " +
      "The server does not answer: keep this page open and start coresc review " +
      "again (same papers, same -o and --annotator); they are sent as soon as it answers.",
    true, "NOT SAVED: " + what);
  }

  function mark() {
    document.body.setAttribute("data-pending", String(queue.length));
    document.body.setAttribute("data-unsaved", offline ? String(decidedWaiting()) : "0");
    if (offline && queue.length) { notSaved(); }
    const js = new Set(queue.map((q) => q.j));
    document.querySelectorAll(".s.rv-wait, .s.rv-unsaved").forEach((el) => {
      js.add(Number(el.getAttribute("data-sid")));
    });
    js.forEach((j) => { if (j !== null) { render(j); } });
    panel();
  }

  // requests go one at a time, in the order the keys were pressed
  // each request has an id, kept when it is sent again: the server carries it out once
  const page = Array.from(crypto.getRandomValues(new Uint32Array(2)),
    (x) => x.toString(36)).join("");
  let sent = 0;
  function send(path, body, j, then) {
    sent += 1;
    body.request = page + "-" + sent;
    queue.push({ path: path, body: body, j: j, then: then });
    if (!offline) { saved("saving…", false); }
    mark();
    pump();
  }

  function pump() {
    if (sending || !queue.length || retry !== null) { return; }
    sending = true;
    const q = queue[0];
    fetch(base + q.path, {
      method: "POST", credentials: "same-origin",
      headers: { "Content-Type": "application/json", "X-Coresc-Review": "1" },
      body: JSON.stringify(q.body),
    }).then((r) => r.json().catch(() => ({})).then((answer) => {
      if (r.status >= 500 || (r.status === 401 && offline)) {
        throw new Error(answer.error || r.statusText);
      }
      queue.shift();
      offline = false;  // it answered, even if it refused
      if (!r.ok) { refused(q, answer.error || r.statusText); return; }
      q.then(answer);
      progress(answer.progress);
      if (!queue.length) {
        saved("saved " + new Date().toLocaleTimeString(), false);
        document.body.removeAttribute("data-error");
      }
    })).catch((err) => {
      // no answer (the server stopped): keep the request, show it unsaved, try again
      offline = true;
      lost = err.message;
      notSaved();
      document.body.setAttribute("data-error", err.message);
      retry = setTimeout(() => { retry = null; pump(); }, RETRY_MS);
    }).finally(() => {
      sending = false;
      mark();
      pump();
    });
  }

  // the server answered and refused (a bad request): the sentence keeps what is saved
  function refused(q, message) {
    if (q.j !== null) { S[q.j].d = S[q.j].ok; }
    saved("NOT SAVED: " + message + " (the sentence keeps its saved labels)", true,
      "NOT SAVED: refused");
    document.body.setAttribute("data-error", message);
  }

  function decide(j, body) {
    send("/sentences/" + j, body, j, (answer) => {
      S[j].ok = answer.decision;
      if (!waiting(j)) { S[j].d = answer.decision; }
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
    if (!S[j].m.length && !S[j].d) {
      saved(S[j].c ? "take a choice: 1 or 2, or set a label by its letter" :
        "nothing to accept: set a label by its letter, or " + data.no_label_key +
        " for none", false);
      return;
    }
    if (!S[j].d) { S[j].d = { labels: shown(j), action: "confirmed", at: "…" }; }
    decide(j, { accept: true });
    select(step(j, 1));
  }

  function take(k) {
    if (!S[cur].c) { return; }
    setLabels(S[cur].c[k].slice());
    select(step(cur, 1));
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

  // the sentence has no CoreSC label (acknowledgements, funding): saved as such
  function noLabel() {
    if (S[cur].d && !S[cur].d.labels.length) { return; }
    setLabels([], { novelty: null, advantage: null });
  }

  function cycle(name, values) {
    if (!shown(cur).length) { saved("no label: no " + name + " either", false); return; }
    const d = S[cur].d || {};
    const now = d[name] || null;
    const next = now === null ? values[0] : (values.indexOf(now) + 1 < values.length ?
      values[values.indexOf(now) + 1] : null);
    const extra = {};
    extra[name] = next;
    setLabels(shown(cur), extra);
  }

  function undo() {
    send("/undo", {}, null, (answer) => {
      if (answer.sentence === null) { saved("nothing to undo", false); return; }
      S[answer.sentence].ok = answer.decision;
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

  function adaptStatus(text, isError) {
    const status = $("rv-adapt-status");
    status.textContent = text;
    status.title = text;  // the bar shows one line; the whole message is here and below
    status.className = isError ? "error" : "";
    $("rv-adapt-message").textContent = text;
    $("rv-adapt-message").className = isError ? "error" : "";
  }

  function adapt() {
    adaptStatus("adapting the model…", false);
    fetch("../api/adapt", { method: "POST", credentials: "same-origin",
      headers: { "Content-Type": "application/json", "X-Coresc-Review": "1" }, body: "{}" })
      .then((r) => r.json()).then(poll)
      .catch((err) => adaptStatus("cannot adapt: " + err.message, true));
  }
  function poll(job) {
    if (job.error && !job.state) { adaptStatus(job.error, true); return; }
    adaptStatus(job.state + (job.message ? ": " + job.message : ""), job.state === "failed");
    if (job.state === "running") {
      setTimeout(() => fetch("../api/adapt", { credentials: "same-origin" })
        .then((r) => r.json()).then(poll), 1000);
    } else if (job.state === "done") {
      relabel();
    }
  }
  // the adapted model's labels, in place: the result stays on the page
  function relabel() {
    fetch(base, { credentials: "same-origin" }).then((r) => r.json()).then((fresh) => {
      fresh.sentences.forEach((s, j) => {
        S[j].m = s.m;
        S[j].u = s.u;
        if (!waiting(j)) { S[j].d = s.d; S[j].ok = s.d; }
        render(j);
      });
      $("rv-model").textContent = fresh.model_name;
      $("rv-where").title = "labels by " + fresh.model;
      progress(fresh.progress);
      panel();
    });
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
    else if (key === "j" || key === "ArrowDown") { select(step(cur, 1)); }
    else if (key === "k" || key === "ArrowUp") { select(step(cur, -1)); }
    else if (adj && (key === "1" || key === "2")) { take(Number(key) - 1); }
    else if (key === "n") { nextUncertain(); }
    else if (key === "e") { cycle("novelty", data.novelty); }
    else if (key === "a") { cycle("advantage", data.advantage); }
    else if (key === "i") { $("rv-comment").focus(); }
    else if (key === "Backspace") { const l = shown(cur); if (l.length > 1) { setLabels(l.slice(0, -1)); } }
    else if (key === "[") { goPaper(data.paper - 1); }
    else if (key === "]") { goPaper(data.paper + 1); }
    else if (key === "U") { adapt(); }
    else if (key === "?") { const km = $("rv-keymap"); km.open = !km.open; }
    else if (key === data.no_label_key) { noLabel(); }
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
  [["no label " + data.no_label_key, noLabel], ["accept ⏎", accept], ["undo", undo],
    ["next uncertain", nextUncertain]].forEach((pair) => {
    const b = document.createElement("button");
    b.type = "button";
    b.textContent = pair[0];
    b.addEventListener("click", () => { b.blur(); pair[1](); });
    buttons.appendChild(b);
  });
  $("rv-adapt").addEventListener("click", () => { $("rv-adapt").blur(); adapt(); });

  S.forEach((_, j) => { render(j); if (spans[j]) { spans[j].classList.toggle("rv-hide", !listed(j)); } });
  progress(data.progress);
  select(cur, cur > 0);
  fetch("../api/adapt", { credentials: "same-origin" }).then((r) => r.json()).then((job) => {
    if (job.state === "running") { poll(job); }
    else if (job.state === "done" || job.state === "failed") {
      adaptStatus(job.state + ": " + job.message, job.state === "failed");
    }
  }).catch(() => {});
  window.addEventListener("beforeunload", (e) => {
    if (queue.length) { e.preventDefault(); e.returnValue = ""; }  // decisions not saved
  });
  document.body.setAttribute("data-ready", "1");
}());
