/* The page: lists the cases, follows the current run's events (long polling), and sends the person's answers. */
"use strict";

(() => {
  const { el, wireRow, askForm, answered, result } = window.Render;
  const WHAT = { "2026-07-28": "input_required rounds, stateless", "2025-11-25": "elicitation/create mid-call, one session" };
  const state = { cases: {}, run: null, after: 0, columns: {}, case: null };
  const status = document.getElementById("status");

  function say(text) { status.textContent = text; }

  async function api(path, body) {
    const response = await fetch(path, body === undefined ? {} : {
      method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify(body),
    });
    return response.json();
  }

  async function copy(text, what) {
    try {
      await navigator.clipboard.writeText(text);
    } catch (_) {
      // Not a secure context (a projector reaching the demo by its address): the old way still works.
      const area = el("textarea", { "aria-hidden": "true", style: "position:fixed;left:-9999px" });
      area.value = text;
      document.body.append(area);
      area.select();
      document.execCommand("copy");
      area.remove();
    }
    say(`Copied the request as ${what}.`);
  }

  function column(revision) {
    if (state.columns[revision]) return state.columns[revision];
    const node = document.getElementById("column").content.firstElementChild.cloneNode(true);
    node.dataset.revision = revision;
    node.setAttribute("aria-label", `Protocol ${revision}`);
    node.querySelector(".badge.rev").textContent = revision;
    node.querySelector(".what").textContent = WHAT[revision] || "";
    document.getElementById("columns").append(node);
    const panes = {
      node,
      person: node.querySelector(".person .body"),
      wire: node.querySelector(".wire .body"),
      model: node.querySelector(".model .body"),
      count: node.querySelector(".wire .count"),
      rows: {},
      calls: {},
      asks: {},
      messages: 0,
    };
    state.columns[revision] = panes;
    return panes;
  }

  function clear(revisions) {
    for (const panes of Object.values(state.columns)) panes.node.remove();
    state.columns = {};
    for (const revision of revisions) column(revision);
  }

  function showCase(key) {
    state.case = state.cases[key] || null;
    for (const button of document.querySelectorAll("#case-list button")) {
      button.setAttribute("aria-pressed", String(button.dataset.case === key));
    }
    const steps = document.getElementById("steps");
    steps.replaceChildren();
    document.getElementById("story-title").textContent = state.case ? state.case.title : "Pick a case";
    document.getElementById("story-summary").textContent = state.case ? state.case.summary : "Each case runs on fresh data, on both protocol revisions at once.";
    if (!state.case) return;
    for (const step of state.case.steps) {
      steps.append(el("li", { "data-phase": step.phase },
        el("span", { class: "marks", "aria-hidden": "true" }, Object.keys(state.columns).map((r) => el("span", { class: "mark", "data-revision": r, title: r }))),
        el("span", {}, step.text)));
    }
  }

  function reach(revision, phase) {
    for (const item of document.querySelectorAll(`#steps li[data-phase="${phase}"]`)) {
      const mark = item.querySelector(`.mark[data-revision="${revision}"]`);
      if (mark) mark.classList.add("on");
      item.classList.add("reached");
    }
  }

  const dirty = new Set();
  function scrollDown(pane) { dirty.add(pane.parentElement); }
  function settle() {
    // After a batch of events: show the newest line of every pane that grew, or the top of an open form.
    for (const pane of dirty) {
      const form = pane.querySelector("form.ask");
      if (form) pane.scrollTop = form.offsetTop - pane.querySelector("h3").offsetHeight - 8;
      else pane.scrollTop = pane.scrollHeight;
    }
    dirty.clear();
  }

  function idle(body) { const quiet = body.querySelector(".idle"); if (quiet) quiet.remove(); }

  function addWire(panes, entry) {
    if (entry.kind === "status") {
      const row = panes.rows[entry.of];
      const slot = row && row.querySelector(".http-status");
      if (slot) {
        const type = (entry.content_type || "").includes("event-stream") ? "SSE" : (entry.content_type || "").includes("json") ? "JSON" : "";
        slot.replaceChildren(window.Render.badge(`HTTP ${entry.status}${type ? " " + type : ""}`, "http"));
      }
      return;
    }
    const row = wireRow(entry, copy);
    panes.rows[entry.seq] = row;
    if (entry.kind === "message") panes.messages += 1;
    panes.count.textContent = `${panes.messages} messages`;
    const message = entry.message || {};
    const call = entry.call;
    if (entry.direction === "out" && message.method && message.id !== undefined) {
      // A client request opens an exchange; what comes back for it (nested server requests included) goes inside.
      const group = el("li", { class: "exchange", "data-call": message.id }, row, el("ol", { class: "nested", "aria-label": `Within request ${message.id}` }));
      panes.calls[message.id] = group;
      panes.wire.append(group);
    } else if (call !== undefined && call !== null && panes.calls[call]) {
      const group = panes.calls[call];
      if (entry.nested) group.querySelector(".nested").append(row);
      else group.append(row);
    } else {
      panes.wire.append(row);
    }
    scrollDown(panes.wire);
  }

  function answer(revision, ask, action, contents) {
    const form = state.columns[revision] && state.columns[revision].person.querySelector(`form[data-ask="${ask}"]`);
    if (form) for (const control of form.querySelectorAll("button, input")) control.disabled = true;
    api("/api/answers", { run: state.run, ask, action, contents }).then((reply) => {
      if (reply.error) say(reply.error);
    });
  }

  function apply(event) {
    const panes = event.column ? column(event.column) : null;
    switch (event.type) {
      case "start":
        panes.node.dataset.world = event.world || "";
        panes.node.querySelector(".world").textContent = event.world ? `world ${event.world}, a fresh fork` : "";
        panes.node.querySelector(".world").title = `Token bound to world ${event.world} (a fork of the demo world), sent to ${event.url}`;
        if (!event.forms) {
          idle(panes.person);
          panes.person.append(el("p", { class: "note-box" }, "This client declared no elicitation capability: it cannot show forms, so the server never sends one. Whatever the person must decide, the model has to ask in the conversation."));
        }
        break;
      case "wire":
        addWire(panes, event);
        break;
      case "phase":
        reach(event.column, event.phase);
        break;
      case "ask": {
        idle(panes.person);
        panes.asks[event.ask] = event;
        const form = askForm(event, event.column === "2026-07-28", (action, contents) => answer(event.column, event.ask, action, contents));
        panes.person.append(form);
        const focused = document.activeElement && document.activeElement.closest("form.ask");
        if (!focused) (form.querySelector("input:checked, input") || form.querySelector("button")).focus();
        scrollDown(panes.person);
        break;
      }
      case "answered": {
        const form = panes.person.querySelector(`form[data-ask="${event.ask}"]`);
        const asked = panes.asks[event.ask];
        const summary = answered(event, asked ? asked.questions : []);
        summary.dataset.ask = event.ask;
        if (form) form.replaceWith(summary); else panes.person.append(summary);
        const next = document.querySelector("form.ask input, form.ask button");
        if (next && (!document.activeElement || document.activeElement === document.body)) next.focus();
        break;
      }
      case "hold":
        panes.person.append(el("p", { class: "note-box hold" }, `The client holds your answer for ${event.seconds} s before sending it.`));
        scrollDown(panes.person);
        break;
      case "result": {
        idle(panes.model);
        panes.model.append(result(event));
        const failed = event.error || event.is_error;
        const none = !failed && event.structured && window.Render.NONE.includes(event.structured.outcome);
        panes.person.append(el("p", { class: `outcome${failed ? " bad" : none ? " none" : ""}` }, event.person));
        idle(panes.person);
        scrollDown(panes.person);
        scrollDown(panes.model);
        break;
      }
      case "failed":
        panes.model.append(el("p", { class: "outcome bad" }, `The column stopped: ${event.text}`));
        break;
      case "end":
        panes.node.dataset.over = "true";
        break;
      case "done":
        say("Done. Pick another case, or run this one again.");
        break;
      default:
        break;
    }
  }

  function tick() {
    const now = Date.now();
    for (const node of document.querySelectorAll(".countdown[data-expires]")) {
      const left = Math.round((Date.parse(node.dataset.expires) - now) / 1000);
      node.textContent = left > 0 ? `the round expires in ${window.Render.duration(left)}` : "the round has expired";
    }
  }

  async function follow() {
    for (;;) {
      let reply;
      try {
        reply = await api(`/api/events?run=${encodeURIComponent(state.run || "")}&after=${state.after}`);
      } catch (_) {
        say("The demo server does not answer; retrying…");
        await new Promise((resolve) => setTimeout(resolve, 1000));
        continue;
      }
      if (reply.run !== state.run) {
        state.run = reply.run;
        state.after = 0;
        document.body.dataset.run = reply.run || "";
        clear(reply.revisions || Object.keys(WHAT));
        showCase(reply.case || null);
        if (reply.run) say(`Running: ${state.case ? state.case.title : reply.case}`);
        else say("Ready. Pick a case.");
      }
      for (const event of reply.events || []) {
        if (event.seq <= state.after) continue;
        state.after = event.seq;
        apply(event);
      }
      settle();
    }
  }

  async function start(key) {
    say("Starting…");
    const reply = await api("/api/runs", { case: key });
    if (reply.error) say(reply.error);
  }

  async function main() {
    const listing = await api("/api/cases");
    const list = document.getElementById("case-list");
    for (const item of listing.cases) {
      state.cases[item.key] = item;
      list.append(el("li", {}, el("button", { type: "button", "data-case": item.key, "aria-pressed": "false", onclick: () => start(item.key) },
        item.title)));
    }
    clear(listing.revisions);
    document.getElementById("reset").addEventListener("click", async () => {
      say("Resetting: fresh demo data from the baseline…");
      await api("/api/reset", {});
      say("Fresh data. Pick a case.");
    });
    setInterval(tick, 500);
    say("Ready. Pick a case.");
    follow();
  }

  main();
})();
