// coresc serve: the upload page. Sends the paper to POST /annotate twice (the HTML view
// to show, and the chosen format to download); everything else stays in the browser.
"use strict";
(function () {
  const $ = (id) => document.getElementById(id);
  const form = $("form"), drop = $("drop"), fileInput = $("file"), status = $("status");
  let dropped = null, urls = [];

  fetch("health").then((r) => r.json()).then((h) => {
    $("token-row").hidden = !h.token_required;
    if (h.grobid) { $("pdf-note").textContent = " (PDFs through GROBID)"; }
  }).catch(() => {});

  function say(text, isError) {
    status.textContent = text;
    status.className = isError ? "error" : "";
  }

  // The CLI's warnings (a paper that does not look like English): each X-Coresc-Warning
  // header is a JSON string, and fetch joins several with ", ", the items of an array.
  function warn(lines) {
    const box = $("warnings");
    box.textContent = lines.map((l) => "Warning: " + l).join("\n");
    box.hidden = !lines.length;
  }

  function warningsOf(answer) {
    const value = answer.headers.get("X-Coresc-Warning");
    if (!value) { return []; }
    try { return JSON.parse("[" + value + "]"); } catch (e) { return [value]; }
  }

  // A 401 in the page's words: the page sends the token from its Token box.
  function unauthorised() {
    return $("token").value
      ? "The token is wrong: check the Token box (this server needs the token it was started with)."
      : "This server needs a token: enter it in the Token box, then Annotate again.";
  }

  drop.addEventListener("dragover", (e) => { e.preventDefault(); drop.classList.add("over"); });
  drop.addEventListener("dragleave", () => drop.classList.remove("over"));
  drop.addEventListener("drop", (e) => {
    e.preventDefault();
    drop.classList.remove("over");
    if (e.dataTransfer.files.length) {
      dropped = e.dataTransfer.files[0];
      say("Ready: " + dropped.name, false);
    }
  });
  fileInput.addEventListener("change", () => { dropped = null; });

  function body() {
    const file = dropped || fileInput.files[0];
    if (file) {
      const data = new FormData();
      data.append("file", file, file.name);
      return data;
    }
    const text = $("text").value;
    return text.trim() ? new Blob([text], { type: "text/plain; charset=utf-8" }) : null;
  }

  async function annotate(to) {
    const query = new URLSearchParams({ to: to });
    const minScore = $("min-score").value;
    if (minScore !== "") { query.set("min_score", minScore); }
    const headers = {};
    if ($("token").value) { headers.Authorization = "Bearer " + $("token").value; }
    const answer = await fetch("annotate?" + query, { method: "POST", body: body(), headers });
    if (answer.status === 401) {
      $("token-row").hidden = false;
      throw new Error(unauthorised());
    }
    if (!answer.ok) {
      let message = answer.status + " " + answer.statusText;
      try { message = (await answer.json()).error || message; } catch (e) { /* not JSON */ }
      throw new Error(message);
    }
    const disposition = answer.headers.get("Content-Disposition") || "";
    const whole = /filename\*=UTF-8''([^;]+)/.exec(disposition);
    const ascii = /filename="([^"]+)"/.exec(disposition);
    const name = whole ? decodeURIComponent(whole[1]) : ascii ? ascii[1] : "paper_coresc";
    return { blob: await answer.blob(), name: name,
             warnings: warningsOf(answer) };
  }

  form.addEventListener("submit", async (e) => {
    e.preventDefault();
    if (!body()) { say("Choose or drop a paper, or paste its text.", true); return; }
    $("go").disabled = true;
    warn([]);
    say("Annotating ...", false);
    try {
      const to = $("to").value;
      const view = await annotate("html");
      const file = to === "html" ? view : await annotate(to);
      urls.forEach((u) => URL.revokeObjectURL(u));
      urls = [URL.createObjectURL(view.blob), URL.createObjectURL(file.blob)];
      $("view").src = urls[0];
      $("download").href = urls[1];
      $("download").download = file.name;
      $("download").textContent = "Download " + file.name;
      $("result").hidden = false;
      warn(view.warnings);
      say("Done.", false);
    } catch (err) {
      say(err.message, true);
    } finally {
      $("go").disabled = false;
    }
  });
})();
