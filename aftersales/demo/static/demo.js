/* The page: lists the cases, follows the current run's events (long polling), and sends the person's answers. */
"use strict";

(() => {
  const { el, wireRow, askForm, answered, result } = window.Render;
  const WHAT = { "2026-07-28": "input_required rounds, stateless", "2025-11-25": "elicitation/create mid-call, one session" };
  // Rows that set a session up rather than do the case: folded into one line each run of them, opened on demand.
  const HANDSHAKE = ["server/discover", "initialize", "notifications/initialized", "tools/list"];
  const state = { cases: {}, run: null, after: 0, columns: {}, case: null, target: null, ran: null };
  const status = document.getElementById("status");
  const SHORT = window.matchMedia("(max-height: 800px)"); // a projector's 1280×720: the narration starts folded

  function say(text) { status.textContent = text; }

  async function api(path, body, method) {
    const response = await fetch(path, body === undefined && !method ? {} : {
      method: method || "POST", headers: { "Content-Type": "application/json" }, body: body === undefined ? undefined : JSON.stringify(body),
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
    say(`Copied ${what}.`);
  }

  /* The wire pane follows its newest row whenever it grows or resizes, until the person scrolls up to read. */
  function follow(pane) {
    const scroller = pane.parentElement;
    const list = pane;
    let touched = 0;
    const keep = { on: true };
    const atBottom = () => scroller.scrollHeight - scroller.clientHeight - scroller.scrollTop <= 4;
    const newest = scroller.querySelector(".newest");
    const stick = () => {
      if (keep.on) scroller.scrollTop = scroller.scrollHeight;
      newest.hidden = keep.on;
    };
    for (const name of ["wheel", "pointerdown", "keydown", "touchstart"]) scroller.addEventListener(name, () => { touched = Date.now(); }, { passive: true });
    scroller.addEventListener("scroll", () => {
      if (atBottom()) keep.on = true;
      else if (Date.now() - touched < 1500) keep.on = false; // the person scrolled; growth alone never unsticks
      newest.hidden = keep.on;
    });
    // Opening a row's JSON or tool details is reading: stay there instead of jumping to the bottom.
    scroller.addEventListener("toggle", (e) => { if (e.target.open && e.target.closest(".msg")) { keep.on = false; newest.hidden = false; } }, true);
    newest.addEventListener("click", () => { keep.on = true; stick(); });
    const observer = new ResizeObserver(stick);
    observer.observe(scroller);
    observer.observe(list);
    keep.stick = stick;
    return keep;
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
      sent: {}, // a request's id -> its event (for how long the answer took)
      asked: {}, // a server request's id -> its event
      tools: {}, // the tools/list answer, by name
      before: {}, // the arguments of the last tools/call without a requestState, by tool
      keys: new Set(), // idempotency keys sent so far
      tamper: null, // what the client is about to change in the next message it sends
      messages: 0,
      carried: [], // every wire message as JSON: the account check looks for the typed number in them
    };
    panes.follow = follow(panes.wire);
    state.columns[revision] = panes;
    return panes;
  }

  function clear(revisions) {
    for (const panes of Object.values(state.columns)) panes.node.remove();
    state.columns = {};
    for (const revision of revisions) column(revision);
  }

  function narrate(open) {
    const toggle = document.getElementById("narration-toggle");
    toggle.setAttribute("aria-expanded", String(open));
    toggle.textContent = open ? "Show the current step only" : "Show every step";
    document.getElementById("steps").classList.toggle("folded", !open);
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
    document.getElementById("case-link").hidden = !state.case;
    if (!state.case) return;
    state.case.steps.forEach((step, index) => {
      steps.append(el("li", { "data-phase": step.phase, class: index === 0 ? "current" : "" },
        el("span", { class: "marks", "aria-hidden": "true" }, Object.keys(state.columns).map((r) => el("span", { class: "mark", "data-revision": r, title: r }))),
        el("span", {}, step.text)));
    });
  }

  function reach(revision, phase) {
    for (const item of document.querySelectorAll(`#steps li[data-phase="${phase}"]`)) {
      const mark = item.querySelector(`.mark[data-revision="${revision}"]`);
      if (mark) mark.classList.add("on");
      item.classList.add("reached");
    }
    // The folded narration shows the furthest step a column has reached.
    const reached = document.querySelectorAll("#steps li.reached");
    for (const item of document.querySelectorAll("#steps li")) item.classList.remove("current");
    if (reached.length) reached[reached.length - 1].classList.add("current");
  }

  const dirty = new Set();
  function scrollDown(pane) { dirty.add(pane.parentElement); }
  function settle() {
    // After a batch of events: show the newest line of the person's and model's panes, or the top of an open form.
    for (const pane of dirty) {
      const form = pane.querySelector("form.ask");
      if (form) pane.scrollTop = form.offsetTop - pane.querySelector("h3").offsetHeight - 8;
      else pane.scrollTop = pane.scrollHeight;
    }
    dirty.clear();
  }

  function idle(body) { const quiet = body.querySelector(".idle"); if (quiet) quiet.remove(); }

  function handshake(entry) {
    if (entry.kind === "http") return entry.http === "GET";
    const message = entry.message || {};
    return HANDSHAKE.includes(message.method);
  }

  /* The fold the next handshake row goes in: the last one, if nothing else came since; else a new one. */
  function fold(panes) {
    const last = panes.wire.lastElementChild;
    if (last && last.classList.contains("fold")) return last;
    const list = el("ol", { class: "folded-rows" });
    const button = el("button", { type: "button", class: "fold-toggle", "aria-expanded": "false" });
    const item = el("li", { class: "fold" }, button, list);
    const label = () => {
      const names = [...new Set([...list.querySelectorAll(".msg")].map((row) => row.dataset.method || (row.classList.contains("http") ? "GET /mcp" : "")).filter(Boolean))];
      const count = list.querySelectorAll(".msg").length;
      button.textContent = `${button.getAttribute("aria-expanded") === "true" ? "▾" : "▸"} Handshake: ${names.join(", ")} · ${count} message${count === 1 ? "" : "s"}`;
    };
    button.addEventListener("click", () => {
      button.setAttribute("aria-expanded", String(button.getAttribute("aria-expanded") !== "true"));
      label();
    });
    item.relabel = label;
    panes.wire.append(item);
    return item;
  }

  function context(panes, entry) {
    // What a row shows besides its message: how long it answered after, and for a call the tool and the call before.
    const message = entry.message || {};
    const found = {};
    if (entry.direction === "in" && message.id !== undefined && !message.method && panes.sent[message.id]) {
      found.since = { what: "answered in", ms: panes.sent[message.id].ms };
    }
    if (entry.direction === "out" && !message.method && entry.nested && panes.asked[message.id]) {
      found.since = { what: "answered after", ms: panes.asked[message.id].ms };
    }
    if (message.method === "tools/call" && message.params) {
      const { name, arguments: args = {}, requestState } = message.params;
      found.tool = panes.tools[name];
      if (!requestState) {
        found.before = panes.before[name];
        found.reused = Boolean(args.idempotency_key && panes.keys.has(args.idempotency_key));
        panes.before[name] = args;
        if (args.idempotency_key) panes.keys.add(args.idempotency_key);
      }
    }
    return found;
  }

  function tampered(panes, row, entry) {
    // The key moment of the tampered case, shown on the row the client changed.
    const change = panes.tamper;
    if (!change || entry.direction !== "out") return;
    const message = entry.message || {};
    const forged = change.what === "answer" && entry.nested && !message.method;
    const edited = change.what === "requestState" && message.method === "tools/call" && message.params && message.params.requestState;
    if (!forged && !edited) return;
    panes.tamper = null;
    row.classList.add("tampered");
    const text = forged
      ? `FORGED by the client: the person chose ${JSON.stringify(change.chosen)}, it sent ${JSON.stringify(change.sent)}`
      : `TAMPERED by the client: character ${change.position} of requestState changed from "${change.was}" to "${change.now}"`;
    row.querySelector(".line").after(el("p", { class: "tamper-note" }, text));
  }

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
    const message = entry.message || {};
    const row = wireRow(entry, copy, context(panes, entry));
    tampered(panes, row, entry);
    panes.rows[entry.seq] = row;
    if (entry.kind === "message") panes.messages += 1;
    panes.count.textContent = `${panes.messages} messages`;
    if (entry.direction === "out" && message.id !== undefined && message.method) panes.sent[message.id] = entry;
    if (entry.direction === "in" && message.id !== undefined && message.method) panes.asked[message.id] = entry;
    const result = message.result || {};
    if (Array.isArray(result.tools)) for (const tool of result.tools) panes.tools[tool.name] = tool;
    if (message.method === "notifications/elicitation/complete") completed(panes, message.params || {});
    const call = entry.call;
    const inside = handshake(entry) || (call !== undefined && call !== null && panes.calls[call] && panes.calls[call].dataset.handshake);
    const home = inside && !(call !== undefined && call !== null && panes.calls[call]) ? fold(panes) : null;
    const target = home ? home.querySelector(".folded-rows") : panes.wire;
    if (entry.direction === "out" && message.method && message.id !== undefined) {
      // A client request opens an exchange; what comes back for it (nested server requests included) goes inside.
      const group = el("li", { class: "exchange", "data-call": message.id, "data-handshake": inside ? "true" : null }, row, el("ol", { class: "nested", "aria-label": `Within request ${message.id}` }));
      panes.calls[message.id] = group;
      target.append(group);
    } else if (call !== undefined && call !== null && panes.calls[call]) {
      const group = panes.calls[call];
      if (entry.nested) group.querySelector(".nested").append(row);
      else group.append(row);
    } else {
      target.append(row);
    }
    const folded = row.closest(".fold");
    if (folded) folded.relabel();
  }

  function completed(panes, params) {
    // 2025-11-25: the server says the page of a URL question is done.
    for (const page of panes.person.querySelectorAll(".url-page")) {
      if (!params.elicitationId || page.dataset.elicitation === params.elicitationId) {
        page.classList.add("done");
        page.querySelector(".page-status").textContent = "The server says the page is done (notifications/elicitation/complete).";
      }
    }
  }

  function answer(revision, ask, action, contents) {
    const form = state.columns[revision] && state.columns[revision].person.querySelector(`form[data-ask="${ask}"]`);
    if (form) for (const control of form.querySelectorAll("button, input")) control.disabled = true;
    api("/api/answers", { run: state.run, ask, action, contents }).then((reply) => {
      if (reply.error) say(reply.error);
    });
  }

  function destructive(panes, tool) {
    const found = panes.tools[tool];
    return Boolean(found && found.annotations && found.annotations.destructiveHint);
  }

  function apply(event) {
    const panes = event.column ? column(event.column) : null;
    switch (event.type) {
      case "start": {
        panes.node.dataset.world = event.world || "";
        const where = panes.node.querySelector(".world");
        where.textContent = event.remote ? `on ${event.url}, its own data` : event.world ? `world ${event.world}, a fresh fork` : "";
        where.title = event.remote ? `The token you gave, sent to ${event.url}` : `Token bound to world ${event.world} (a fork of the demo world), sent to ${event.url}`;
        if (!event.forms) {
          idle(panes.person);
          panes.person.append(el("p", { class: "note-box" }, "This client declared no elicitation capability: it cannot show forms, so the server never sends one. Whatever the person must decide, the model has to ask in the conversation."));
        }
        break;
      }
      case "wire":
        panes.carried.push(JSON.stringify(event));  // for the account check: everything the client carried
        addWire(panes, event);
        break;
      case "phase":
        reach(event.column, event.phase);
        break;
      case "ask": {
        idle(panes.person);
        panes.asks[event.ask] = event;
        const form = askForm(event, event.column === "2026-07-28", (action, contents) => answer(event.column, event.ask, action, contents), destructive(panes, event.tool));
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
      case "tamper":
        panes.tamper = event;
        panes.person.append(el("p", { class: "note-box tamper-note" }, event.what === "answer"
          ? `This client changes your answer on the way: you chose ${JSON.stringify(event.chosen)}, it sends ${JSON.stringify(event.sent)}.`
          : `This client changes one character of the sealed requestState before its retry (character ${event.position}).`));
        scrollDown(panes.person);
        break;
      case "hold": {
        // A countdown through the hold: when the client sends, and when the round it answers expires.
        const until = new Date(Date.now() + event.seconds * 1000).toISOString();
        panes.person.append(el("p", { class: "note-box hold" },
          `The client holds your answer for ${event.seconds} s: `, el("span", { class: "countdown", "data-until": until }),
          event.expires_at ? [" · ", el("span", { class: "countdown", "data-expires": event.expires_at })] : null));
        tick();
        scrollDown(panes.person);
        break;
      }
      case "result": {
        idle(panes.model);
        panes.model.append(result(event));
        for (const page of panes.person.querySelectorAll(".url-page:not(.done)")) {
          page.classList.add("done");  // 2026-07-28: the retry after the person finished found the account
          page.querySelector(".page-status").textContent = "Finished on the page: the call went on.";
        }
        if (panes.node.dataset.typed) {
          panes.model.append(window.Render.accountCheck(panes.node.dataset.typed, panes.carried, JSON.stringify(event)));
        }
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
      case "done": {
        say("Done. Pick another case, or run this one again.");
        document.body.dataset.over = "true";
        // Back to the case that ran (its forms are gone, so focus would fall to the page): Tab goes on from there.
        const active = document.activeElement;
        if (!active || active === document.body || !active.isConnected || active.disabled) {
          const button = document.querySelector(`#case-list button[data-case="${state.case ? state.case.key : ""}"]`);
          if (button) button.focus();
        }
        break;
      }
      default:
        break;
    }
  }

  function tick() {
    const now = Date.now();
    for (const node of document.querySelectorAll(".countdown[data-expires]")) {
      const left = Math.round((Date.parse(node.dataset.expires) - now) / 1000);
      node.textContent = left > 0 ? `the round expires in ${window.Render.duration(left)}` : "the round has expired";
      node.classList.toggle("over", left <= 0);
    }
    for (const node of document.querySelectorAll(".countdown[data-until]")) {
      const left = Math.ceil((Date.parse(node.dataset.until) - now) / 1000);
      node.textContent = left > 0 ? `it sends in ${left} s` : "sent";
    }
  }

  function exports(run) {
    for (const [id, format] of [["export-json", "json"], ["export-md", "md"]]) {
      const link = document.getElementById(id);
      link.hidden = !run;
      if (run) link.href = `/api/export?run=${encodeURIComponent(run)}&format=${format}`;
    }
  }

  async function listen() {
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
        delete document.body.dataset.over;
        clear(reply.revisions || Object.keys(WHAT));
        showCase(reply.case || null);
        exports(reply.run);
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
    if (!state.cases[key]) return;
    // The address bar now holds a link that starts this case (#case=…), to share or bookmark.
    if (location.hash !== `#case=${key}`) history.replaceState(null, "", `#case=${key}`);
    say("Starting…");
    const reply = await api("/api/runs", { case: key });
    if (reply.error) say(reply.error);
  }

  function fromLink() {
    const found = /^#case=([\w-]+)$/.exec(location.hash);
    if (found && state.cases[found[1]]) start(found[1]);
  }

  function showTarget(target) {
    state.target = target;
    document.getElementById("target-name").textContent = target ? `${target.url} (${target.server}, ${target.tools} tools)` : "the demo's own";
    document.getElementById("target-builtin").hidden = !target;
    document.getElementById("reset").disabled = Boolean(target);
    for (const button of document.querySelectorAll("#case-list button")) {
      const only = state.cases[button.dataset.case].builtin_only;
      button.disabled = Boolean(target && only);
      button.title = button.disabled ? "Needs the demo's own server: its rounds live 5 s" : "";
    }
  }

  function targetForm() {
    const form = document.getElementById("target-form");
    const error = document.getElementById("target-error");
    form.addEventListener("submit", async (e) => {
      e.preventDefault();
      error.textContent = "";
      say("Connecting to the other server…");
      const reply = await api("/api/target", { url: form.elements.url.value, token: form.elements.token.value });
      if (reply.error) { error.textContent = reply.error; say("That server cannot be used; the page is unchanged."); return; }
      form.elements.token.value = "";
      showTarget(reply.target);
      document.getElementById("target").open = false;
      say(`The cases now run on ${reply.target.url}.`);
    });
    document.getElementById("target-builtin").addEventListener("click", async () => {
      await api("/api/target", undefined, "DELETE");
      showTarget(null);
      say("The cases run on the demo's own server again.");
    });
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
    document.getElementById("narration-toggle").addEventListener("click", (e) => narrate(e.currentTarget.getAttribute("aria-expanded") !== "true"));
    narrate(!SHORT.matches);
    SHORT.addEventListener("change", (e) => narrate(!e.matches)); // the window moved to a projector, or back
    document.getElementById("case-link").addEventListener("click", () => {
      if (state.case) copy(`${location.origin}${location.pathname}#case=${state.case.key}`, "a link that starts this case");
    });
    targetForm();
    showTarget((await api("/api/target")).target);
    window.addEventListener("hashchange", fromLink);
    setInterval(tick, 250);
    say("Ready. Pick a case.");
    listen();
    fromLink();
  }

  main();
})();
