// claimscope web app: live progress (server-sent events), citation previews, confirmations.
// Every text from the server is inserted with textContent, never as HTML.
"use strict";

(function () {
  function liveProgress(section) {
    var sid = section.dataset.session;
    var since = parseInt(section.dataset.since || "0", 10);
    var source = new EventSource("/sessions/" + encodeURIComponent(sid) + "/events?since=" + since);
    var steps = document.getElementById("steps");
    var log = document.getElementById("events");
    var tree = document.getElementById("tree");
    var warnings = document.getElementById("warnings");
    var counter = document.getElementById("event-count");
    var status = document.getElementById("status");
    var seen = since;

    source.addEventListener("progress", function (msg) {
      var ev = JSON.parse(msg.data);
      if (ev.seq <= seen) { return; }
      seen = ev.seq;
      section.dataset.since = String(seen);
      counter.textContent = seen + " events";
      if (status.textContent !== "running" && status.textContent !== "cancelling…") {
        status.textContent = "running";
        status.className = "status st-running";
      }
      var item = document.createElement("li");
      item.value = ev.seq;
      var kind = document.createElement("span");
      kind.className = "kind";
      kind.textContent = ev.kind;
      var step = document.createElement("span");
      step.className = "step";
      step.textContent = ev.step;
      item.appendChild(kind);
      item.appendChild(document.createTextNode(" "));
      item.appendChild(step);
      item.appendChild(document.createTextNode(" " + ev.message));
      log.appendChild(item);
      var row = ev.step ? steps.querySelector('li[data-step="' + CSS.escape(ev.step) + '"]') : null;
      if (row) {
        if (ev.kind === "step_started") {
          row.className = "running";
          row.dataset.since = String(Date.now());
        }
        if (ev.kind === "step_finished") {
          row.className = "done";
          delete row.dataset.since;
          row.querySelector(".elapsed").textContent = "";
        }
        if (ev.message && ev.kind !== "tree") { row.querySelector(".msg").textContent = ev.message; }
      }
      if (ev.kind === "tree" && ev.message.indexOf("\n") >= 0) { showTree(tree, ev.message); }
      if (ev.kind === "warning") {
        var w = document.createElement("li");
        w.textContent = ev.message;
        warnings.appendChild(w);
      }
    });
    source.addEventListener("end", function (msg) {
      source.close();
      var end = JSON.parse(msg.data);
      status.textContent = end.status;
      status.className = "status st-" + end.status;
      // The page shows what comes next: the review form, the report, or how to resume.
      window.location.reload();
    });
  }

  // The aspect tree as one block per line, indented by its leading spaces, so that a wrapped
  // line stays under its own indent (as the server renders it).
  function showTree(box, text) {
    box.textContent = "";
    text.split("\n").forEach(function (line) {
      var body = line.replace(/^ +/, "");
      var div = document.createElement("div");
      div.className = "tline";
      div.style.paddingLeft = (line.length - body.length) + "ch";
      div.textContent = body;
      box.appendChild(div);
    });
  }

  // The running step's elapsed time, counted here from when the page learnt it started.
  function stepTimers() {
    var steps = document.getElementById("steps");
    if (!steps) { return; }
    var loaded = Date.now();
    steps.querySelectorAll("li[data-elapsed]").forEach(function (li) {
      li.dataset.since = String(loaded - 1000 * parseFloat(li.dataset.elapsed || "0"));
    });
    function tick() {
      steps.querySelectorAll("li").forEach(function (li) {
        var out = li.querySelector(".elapsed");
        if (!out) { return; }
        if (li.className !== "running" || !li.dataset.since) { out.textContent = ""; return; }
        var s = Math.max(0, Math.floor((Date.now() - parseFloat(li.dataset.since)) / 1000));
        out.textContent = Math.floor(s / 60) + ":" + String(s % 60).padStart(2, "0");
      });
    }
    tick();
    window.setInterval(tick, 1000);
  }

  // A follow-up takes a while: the form says so and cannot be sent twice.
  function askBusy() {
    var form = document.getElementById("ask-form");
    if (!form) { return; }
    form.addEventListener("submit", function (e) {
      // Sent in the background, so the page stays live (busy, and cannot be sent twice) until the
      // answer is there; a refusal is then shown by sending the form the ordinary way.
      e.preventDefault();
      var button = form.querySelector("button");
      var body = new FormData(form);
      button.disabled = true;
      button.textContent = "Asking…";
      form.querySelector('input[name="question"]').readOnly = true;
      form.setAttribute("aria-busy", "true");
      document.getElementById("ask-busy").hidden = false;
      fetch(form.action, {method: "POST", body: body, credentials: "same-origin"})
        .then(function (r) {
          if (r.ok && r.redirected) {
            window.location.hash = "chat";
            window.location.reload();
          } else {
            form.submit();
          }
        })
        .catch(function () { form.submit(); });
    });
  }

  // Cancelling returns at once; the page says so until the run has stopped.
  function cancelling() {
    var form = document.getElementById("cancel-form");
    if (!form) { return; }
    form.addEventListener("submit", function () {
      window.setTimeout(function () { form.querySelector("button").disabled = true; }, 0);
    });
  }

  function citationPreviews() {
    var tip = document.createElement("div");
    tip.className = "cite-tip";
    tip.setAttribute("role", "tooltip");
    tip.id = "cite-tip";
    tip.hidden = true;
    document.body.appendChild(tip);
    document.querySelectorAll("a.cite").forEach(function (a) {
      var text = a.getAttribute("title") || "";
      if (!text) { return; }
      a.dataset.sentence = text;
      a.removeAttribute("title");  // the preview replaces the browser's own tooltip
      a.setAttribute("aria-describedby", "cite-tip");
      function show() {
        tip.textContent = a.dataset.sentence;
        var r = a.getBoundingClientRect();
        tip.hidden = false;
        // keep the preview inside the window, under the citation
        var width = tip.offsetWidth;
        var left = Math.min(r.left - 20, document.documentElement.clientWidth - width - 8);
        tip.style.left = (Math.max(8, left) + window.scrollX) + "px";
        tip.style.top = (r.bottom + window.scrollY + 6) + "px";
      }
      function hide() { tip.hidden = true; }
      a.addEventListener("mouseenter", show);
      a.addEventListener("focus", show);
      a.addEventListener("mouseleave", hide);
      a.addEventListener("blur", hide);
    });
  }

  function collapsibleTree() {
    document.querySelectorAll("#report ul.tree li").forEach(function (li) {
      var name = li.querySelector(":scope > .node-name");
      if (!name || !li.querySelector(":scope > ul, :scope > div")) { return; }
      name.setAttribute("role", "button");
      name.setAttribute("tabindex", "0");
      name.setAttribute("aria-expanded", "true");
      function toggle() {
        var open = li.classList.toggle("collapsed") === false;
        name.setAttribute("aria-expanded", open ? "true" : "false");
      }
      name.addEventListener("click", toggle);
      name.addEventListener("keydown", function (e) {
        if (e.key === "Enter" || e.key === " ") { e.preventDefault(); toggle(); }
      });
    });
  }

  function ingestProgress(box) {
    var bar = document.getElementById("ingest-progress");
    var count = document.getElementById("ingest-count");
    function poll() {
      fetch("/corpora/jobs/" + encodeURIComponent(box.dataset.job), {credentials: "same-origin"})
        .then(function (r) { return r.json(); })
        .then(function (job) {
          bar.value = job.done;
          count.textContent = job.done + " of " + job.total;
          if (job.finished) { window.location.reload(); } else { window.setTimeout(poll, 400); }
        });
    }
    poll();
  }

  function confirmations() {
    document.querySelectorAll("form.confirm").forEach(function (form) {
      form.addEventListener("submit", function (e) {
        if (!window.confirm(form.dataset.confirm || "Are you sure?")) { e.preventDefault(); }
      });
    });
  }

  // A check in progress: where it stands ("claim 3 of 7: gather"), each claim's step or verdict;
  // the page reloads when the check ends, showing the marked text.
  function checkProgress(section) {
    var id = section.dataset.check;
    var line = document.getElementById("check-line");
    var bar = document.getElementById("check-bar");
    var count = document.getElementById("check-count");
    var status = document.getElementById("check-status");
    var list = document.getElementById("check-claims");
    function poll() {
      fetch("/checks/" + encodeURIComponent(id) + "/status", {credentials: "same-origin"})
        .then(function (r) { return r.json(); })
        .then(function (s) {
          if (line && s.line) { line.textContent = s.line; }
          if (bar) { bar.value = s.done; }
          count.textContent = s.done + " of " + s.total;
          if (status.textContent !== "cancelling…" || s.status !== "running") {
            status.textContent = s.status === "cancelling" ? "cancelling…" : s.status;
            status.className = "status st-" + s.status;
          }
          s.claims.forEach(function (c) {
            var li = list ? list.querySelector('li[data-claim="' + CSS.escape(c.id) + '"]') : null;
            if (!li) { return; }
            li.className = c.verdict ? "done" : (c.step ? "running" : "waiting");
            li.querySelector(".msg").textContent = c.verdict || c.step;
          });
          if (["queued", "running", "cancelling"].indexOf(s.status) < 0) {
            window.location.reload();
          } else {
            window.setTimeout(poll, 1000);
          }
        })
        .catch(function () { window.setTimeout(poll, 3000); });
    }
    poll();
  }

  // Finding the claims takes a few seconds: the form says so and cannot be sent twice.
  function checkBusy() {
    var form = document.getElementById("check-form");
    if (!form) { return; }
    form.addEventListener("submit", function () {
      window.setTimeout(function () {
        form.querySelector("button[type=submit]").disabled = true;
        document.getElementById("check-busy").hidden = false;
      }, 0);
    });
  }

  document.addEventListener("DOMContentLoaded", function () {
    var section = document.getElementById("session");
    if (section && section.dataset.live === "yes") { liveProgress(section); }
    var job = document.getElementById("ingest-job");
    if (job && job.dataset.finished === "no") { ingestProgress(job); }
    citationPreviews();
    collapsibleTree();
    confirmations();
    stepTimers();
    askBusy();
    cancelling();
    var check = document.getElementById("check");
    if (check && check.dataset.live === "yes") { checkProgress(check); }
    checkBusy();
  });
})();
