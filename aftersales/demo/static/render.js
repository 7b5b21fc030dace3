/* Builders for what the panes show: wire rows, the person's forms, the model's results. No framework, no build. */
"use strict";

window.Render = (() => {
  function el(tag, attrs, ...children) {
    const node = document.createElement(tag);
    for (const [name, value] of Object.entries(attrs || {})) {
      if (value === undefined || value === null || value === false) continue;
      if (name === "class") node.className = value;
      else if (name.startsWith("on")) node.addEventListener(name.slice(2), value);
      else node.setAttribute(name, value === true ? "" : value);
    }
    for (const child of children.flat(Infinity)) {
      if (child === undefined || child === null || child === false) continue;
      node.append(child instanceof Node ? child : document.createTextNode(String(child)));
    }
    return node;
  }
  const badge = (text, kind) => el("span", { class: `badge ${kind || ""}`.trim() }, text);
  const NONE = ["not_created", "not_cancelled"]; // outcomes where the person's "no" left everything as it was
  const json = (value) => JSON.stringify(value, null, 2);
  const clock = (iso) => (iso ? iso.slice(11, 19) + " UTC" : "");

  /* The wall clock of an event, to a tenth of a second (HH:MM:SS.s), to compare with a round's expiry. */
  const stamp = (iso) => (iso ? iso.slice(11, 21) : "");
  const ms = (value) => (value >= 1000 ? `${(value / 1000).toFixed(1)} s` : `${value} ms`);
  const show = (value) => (typeof value === "string" ? value : JSON.stringify(value));

  function duration(seconds) {
    if (seconds >= 120) return `${Math.round(seconds / 60)} min`;
    return `${Math.round(seconds)} s`;
  }

  /* One line summing up a JSON-RPC message: what it is, in badges and a few words. */
  function summary(entry) {
    const m = entry.message;
    const parts = [];
    if (m.method) {
      parts.push(badge(m.method, m.method === "elicitation/create" ? "ask" : ""));
      if (m.id !== undefined) parts.push(badge(`id ${m.id}`));
      const p = m.params || {};
      if (m.method === "tools/call") {
        parts.push(el("span", { class: "what" }, p.name));
        if (p.requestState) parts.push(badge("retry", "ask"));
        for (const [key, answer] of Object.entries(p.inputResponses || {})) {
          parts.push(badge(`${key} = ${answer.action}`, answer.action === "accept" ? "ok" : "bad"));
        }
      }
      if (m.method === "elicitation/create") parts.push(el("span", { class: "what" }, p.message));
    } else if (m.error) {
      parts.push(badge(`error ${m.error.code}`, "bad"), badge(`id ${m.id}`));
      parts.push(el("span", { class: "what" }, m.error.message));
    } else {
      const r = m.result || {};
      if (r.resultType === "input_required") {
        parts.push(badge("input_required", "ask"), badge(`id ${m.id}`));
        for (const key of Object.keys(r.inputRequests || {})) parts.push(badge(key, "ask"));
      } else if (entry.nested && r.action) {
        parts.push(badge(`answer: ${r.action}`, r.action === "accept" ? "ok" : "bad"), badge(`id ${m.id}`));
        if (r.content) parts.push(el("span", { class: "what" }, JSON.stringify(r.content)));
      } else if (r.content !== undefined && r.isError !== undefined) {
        parts.push(badge("result", r.isError ? "bad" : "ok"), badge(`id ${m.id}`));
        if (r.isError) parts.push(badge("isError: true", "bad"));
        const outcome = r.structuredContent && r.structuredContent.outcome;
        if (outcome) parts.push(badge(`outcome: ${outcome}`, NONE.includes(outcome) ? "bad" : "ok"));
        const ticket = r.structuredContent && r.structuredContent.ticket;
        if (ticket) parts.push(badge(ticket.ticket_id, "ok"));
      } else {
        parts.push(badge("result", "ok"), badge(`id ${m.id}`));
        if (r.tools) parts.push(el("span", { class: "what" }, `${r.tools.length} tools`));
        if (r.protocolVersion || r.capabilities) parts.push(el("span", { class: "what" }, "server capabilities"));
      }
    }
    return parts;
  }

  function sealedFacts(entry) {
    const s = entry.sealed;
    if (!s) return null;
    if (entry.direction === "out") {
      const how = s.echo === "unchanged" ? "echoed back unchanged" : "CHANGED by the client";
      return el("p", { class: "sealed" }, el("strong", {}, "requestState: sealed"), ` · ${s.bytes} bytes · ${how}`);
    }
    if (!s.opened) return el("p", { class: "sealed" }, el("strong", {}, "requestState: sealed"), ` · ${s.bytes} bytes`);
    return el(
      "p",
      { class: "sealed" },
      el("strong", {}, "requestState: sealed"),
      ` (AES-GCM) · ${s.bytes} bytes · bound to caller ${s.caller || "(none)"}, tool ${s.tool}, `,
      `these arguments (sha-256 ${s.arguments_digest}) · expires ${clock(s.expires_at)}, `,
      `${duration(s.ttl_seconds)} after it was issued (AFTERSALES_STATE_TTL)`
    );
  }

  function copyButtons(entry, copy) {
    if (!entry.snippets) return null;
    return el(
      "div",
      { class: "copy" },
      el("button", { type: "button", class: "copy-curl", onclick: () => copy(entry.snippets.curl, "curl") }, "Copy as curl"),
      el("button", { type: "button", class: "copy-python", onclick: () => copy(entry.snippets.python, "Python") }, "Copy as Python")
    );
  }

  /* When a row happened (wall clock) and, for what answers something, how long after it. */
  function timing(entry, context) {
    const since = context && context.since;
    return el("span", { class: "timing", title: `${entry.ms} ms after the run started` },
      el("time", { datetime: entry.at || "" }, stamp(entry.at)),
      since !== undefined ? el("span", { class: "took" }, ` · ${since.what} ${ms(entry.ms - since.ms)}`) : null);
  }

  /* A tools/call's arguments, each given one shown, each one of the input schema not given marked. */
  function argumentList(args, tool) {
    const schema = (tool && tool.inputSchema) || {};
    const props = schema.properties || {};
    const required = schema.required || [];
    const names = [...Object.keys(args), ...Object.keys(props).filter((name) => !(name in args))];
    return el("ul", { class: "args", "aria-label": "Arguments" }, names.map((name) => {
      if (name in args) return el("li", { class: "arg", "data-name": name }, el("span", { class: "name" }, name), " ", el("span", { class: "value" }, show(args[name])));
      const need = required.includes(name) ? "missing, required" : "missing";
      return el("li", { class: "arg missing", "data-name": name, title: (props[name] && props[name].description) || "" }, el("span", { class: "name" }, name), " ", el("span", { class: "value" }, need));
    }));
  }

  /* What changed from the call before (the no-forms retry's refund_method), and a key used again (a replay). */
  function changes(args, context) {
    const before = context && context.before;
    if (!before) return null;
    const parts = [];
    for (const [name, value] of Object.entries(args)) {
      if (!(name in before)) parts.push(badge(`+ ${name}: ${show(value)}`, "added"));
      else if (JSON.stringify(before[name]) !== JSON.stringify(value)) parts.push(badge(`${name}: ${show(before[name])} → ${show(value)}`, "added"));
    }
    for (const name of Object.keys(before)) if (!(name in args)) parts.push(badge(`− ${name}`, "bad"));
    if (!parts.length) parts.push(badge("same arguments as the call before", "http"));
    if (context.reused) parts.push(badge(`idempotency_key reused: ${args.idempotency_key}`, "reused"));
    return el("div", { class: "line changes", "aria-label": "Compared with the call before" }, parts);
  }

  function toolInfo(tool) {
    if (!tool) return null;
    return el("details", { class: "tool-info" }, el("summary", {}, `Tool ${tool.name}: description and input schema`),
      el("p", { class: "description" }, tool.description || "(no description)"), el("pre", {}, json(tool.inputSchema || {})));
  }

  function callDetails(entry, context) {
    const m = entry.message;
    if (m.method !== "tools/call" || !m.params) return null;
    const args = m.params.arguments || {};
    if (m.params.requestState) return null; // a round's retry: the same arguments, with the answers
    return [changes(args, context), argumentList(args, context && context.tool), toolInfo(context && context.tool)];
  }

  /* A row of the wire pane; `context` is what the column knows: the tool, the call before, when it was asked. */
  function wireRow(entry, copy, context) {
    if (entry.kind === "http") {
      const what = entry.http === "GET" ? "open a stream for server messages" : entry.http === "DELETE" ? "end the session" : "";
      return el("li", { class: "msg out http", "data-seq": entry.seq },
        el("div", { class: "line" }, el("span", { class: "dir" }, "→"), badge(`${entry.http} /mcp`, "http"), el("span", { class: "note" }, what), el("span", { class: "http-status" }), timing(entry)));
    }
    const arrow = entry.direction === "out" ? "→" : "←";
    const kind = entry.message.method ? (entry.message.id !== undefined ? "request" : "notification") : "response";
    return el(
      "li",
      {
        class: `msg ${entry.direction}${entry.nested ? " nested-msg" : ""}`,
        "data-seq": entry.seq,
        "data-kind": kind,
        "data-method": entry.message.method || "",
        "data-result": (entry.message.result && entry.message.result.resultType) || (entry.message.error ? "error" : ""),
      },
      el("div", { class: "line" }, el("span", { class: "dir", title: entry.direction === "out" ? "client to server" : "server to client" }, arrow), summary(entry), el("span", { class: "http-status" }), timing(entry, context)),
      callDetails(entry, context),
      sealedFacts(entry),
      el("div", { class: "more" }, el("details", {}, el("summary", {}, "JSON"), el("pre", {}, json(entry.message))), copyButtons(entry, copy))
    );
  }

  /* One field of a form, from its JSON Schema: titled choices (oneOf or enum), a boolean, or text. */
  const SUGGESTED = () => el("span", { class: "suggestion", title: "The demo's suggested answer: change it if you like" }, "suggested");

  function field(key, name, schema, required, suggested, destructive) {
    const id = `${key}::${name}`.replace(/[^A-Za-z0-9_-]/g, "_");
    const title = schema.title || name;
    const description = schema.description ? el("span", { class: "description" }, ` ${schema.description}`) : null;
    const options = schema.oneOf || (schema.enum || []).map((value) => ({ const: value, title: String(value) }));
    if (options.length) {
      return el("div", { class: "field", role: "radiogroup", "aria-label": title },
        el("span", { class: "label" }, el("strong", {}, title), description),
        options.map((option, index) => {
          const hinted = suggested !== undefined && suggested === option.const;
          return el("label", { class: "choice" },
            el("input", { type: "radio", name: id, value: JSON.stringify(option.const), "data-field": name, required: required && index === 0,
              checked: hinted && !destructive, "data-suggested": hinted ? "true" : null }),
            option.title || String(option.const), hinted ? SUGGESTED() : null);
        }));
    }
    if (schema.type === "boolean") {
      return el("div", { class: "field" },
        // A destructive choice (a tool annotated destructiveHint) is never ticked for the person, only suggested.
        el("label", { class: "choice" }, el("input", { type: "checkbox", name: id, "data-field": name, checked: suggested === true && !destructive,
          "data-suggested": suggested === true ? "true" : null }), el("strong", {}, title), suggested === true ? SUGGESTED() : null),
        description);
    }
    const type = schema.type === "integer" || schema.type === "number" ? "number" : "text";
    return el("div", { class: "field" },
      el("label", { class: "label", for: id }, title), description,
      el("input", { id, type, name: id, "data-field": name, required, value: suggested === undefined ? "" : suggested }),
      suggested === undefined ? null : SUGGESTED());
  }

  /* A URL question as a host shows it: why, the address, and above all the domain the page opens on. */
  function urlQuestion(question) {
    let where = { host: question.url, protocol: "" };
    try { where = new URL(question.url); } catch (_) { /* shown as given */ }
    return el("div", { class: "url-question" },
      el("p", { class: "opens" }, "Opens a page on ", el("strong", { class: "domain" }, where.host),
        where.protocol === "https:" ? null : el("span", { class: "quiet" }, ` (${where.protocol ? where.protocol.slice(0, -1) : "no scheme"}, not https)`)),
      el("p", { class: "url" }, el("code", {}, question.url)),
      el("p", { class: "quiet" }, "Nothing you type there passes through this client or the model."));
  }

  /* The page of a URL question, opened beside it as a host would, with its address bar (the domain first). */
  /* The demo's own check that the account never travels through the client: the page it frames is one origin with
     the demo, so the demo notes the number the person types there (kept in this page only, never sent) and looks for
     it in everything the client carried. A page of another origin cannot be read, and then nothing is checked. */
  function typedOn(event) {
    const frame = event.target;
    let form = null;
    try { form = frame.contentDocument && frame.contentDocument.querySelector("form"); } catch (_) { return; }
    const field = form && form.querySelector("[name=account]");
    const column = frame.closest(".column");
    if (!field || !column) return;
    form.addEventListener("submit", () => {
      const digits = field.value.replace(/[\s-]/g, "").toUpperCase();
      if (digits) column.dataset.typed = digits;
    });
  }

  /* What the check found: the typed number in none (or some) of the messages on the wire and in the model's result. */
  function accountCheck(typed, messages, result) {
    const carried = (text) => text.replace(/[\s-]/g, "").toUpperCase().includes(typed);
    const seen = messages.filter(carried).length + (carried(result) ? 1 : 0);
    const tail = typed.slice(-4);
    return seen
      ? el("p", { class: "account-check bad" }, `The account you typed (ending ${tail}) was carried ${seen} time(s) through this client: it must never be.`)
      : el("p", { class: "account-check ok" }, `The model never saw the account you typed: it is in none of the ${messages.length} messages this client sent or received, nor in the result. The model has only its mask, •••• ${tail}.`);
  }

  function urlPage(question) {
    let host = question.url;
    try { host = new URL(question.url).host; } catch (_) { /* shown as given */ }
    return el("aside", { class: "url-page", "data-ask-key": question.key, "data-elicitation": question.elicitation_id || "", "aria-label": `Page on ${host}` },
      el("div", { class: "address" }, el("strong", { class: "domain" }, host), el("code", {}, question.url),
        el("a", { href: question.url, target: "_blank", rel: "noopener", class: "new-tab" }, "Open in a new tab")),
      el("iframe", { src: question.url, title: `The page on ${host}`, sandbox: "allow-forms allow-same-origin allow-scripts", onload: typedOn }),
      el("p", { class: "page-status quiet", role: "status" }, "Waiting for you to finish on the page."));
  }

  /* The person's form for one round: every question together, with Submit, Decline and Close without answering. */
  function askForm(event, modern, answer, destructive) {
    const suggested = event.suggested || {};
    const count = event.questions.length;
    const url = event.questions.some((question) => question.mode === "url");
    const header = modern
      ? [`Round of ${count} question${count === 1 ? "" : "s"} (input_required)`, event.expires_at ? el("span", { class: "countdown", "data-expires": event.expires_at }) : null]
      : [url ? "elicitation/create (mode url), sent while the call waits" : "elicitation/create, sent while the call waits"];
    const hinted = suggested.action === "accept" && !url;
    const form = el("form", { class: `ask${url ? " url-round" : ""}`, "data-ask": event.ask, "aria-label": "The server asks" },
      el("p", { class: "round" }, header),
      hinted ? el("p", { class: "suggested-note" }, destructive
        ? "This confirms a destructive call: nothing is ticked for you. The demo's suggestion is marked."
        : "The demo filled in its suggested answer (marked suggested); change it as you like.") : null,
      event.questions.map((question, index) => {
        const props = (question.schema && question.schema.properties) || {};
        const required = (question.schema && question.schema.required) || [];
        return el("fieldset", { class: "question", "data-key": question.key, "data-mode": question.mode || "form" },
          el("legend", {}, `${index + 1} of ${count} · ${question.key}`),
          el("p", { class: "message" }, question.message),
          question.mode === "url" ? urlQuestion(question)
            : Object.entries(props).map(([name, schema]) => field(question.key, name, schema, required.includes(name), hinted ? suggested[name] : undefined, destructive)));
      }),
      el("div", { class: "actions" },
        el("button", { type: "submit", class: `primary${suggested.action === "accept" ? " suggested" : ""}` }, url ? "Open the page" : "Submit"),
        el("button", { type: "button", "data-action": "decline", class: suggested.action === "decline" ? "suggested" : "" }, "Decline"),
        el("button", { type: "button", "data-action": "cancel", class: suggested.action === "cancel" ? "suggested" : "", title: "Answers cancel: the person dismissed the question" }, "Close without answering"),
        el("span", { class: "hint" }, url ? "Enter opens the page · Escape closes without answering" : "Enter submits · Escape closes without answering")));
    const contents = () => {
      const found = {};
      for (const fieldset of form.querySelectorAll("fieldset.question")) {
        if (fieldset.dataset.mode === "url") continue; // a URL question's answer is its action only
        const values = {};
        for (const input of fieldset.querySelectorAll("input[data-field]")) {
          const name = input.dataset.field;
          if (input.type === "radio") { if (input.checked) values[name] = JSON.parse(input.value); }
          else if (input.type === "checkbox") values[name] = input.checked;
          else if (input.type === "number") values[name] = input.value === "" ? undefined : Number(input.value);
          else values[name] = input.value;
        }
        found[fieldset.dataset.key] = values;
      }
      return found;
    };
    const open = () => {
      // The page opens beside the question. 2025-11-25: opening it is the answer (accept), and the server says when
      // the page is done (notifications/elicitation/complete). 2026-07-28: the retry waits until the person has finished.
      if (!form.parentElement.querySelector(".url-page")) {
        for (const question of event.questions.filter((q) => q.mode === "url")) form.after(urlPage(question));
      }
      if (!modern) { answer("accept", {}); return; }
      const primary = form.querySelector("button[type=submit]");
      primary.textContent = "I have finished on the page";
      form.dataset.opened = "true";
    };
    form.addEventListener("submit", (e) => {
      e.preventDefault();
      if (url && form.dataset.opened !== "true") open();
      else answer("accept", contents());
    });
    for (const button of form.querySelectorAll("button[data-action]")) {
      button.addEventListener("click", () => answer(button.dataset.action, {}));
    }
    form.addEventListener("keydown", (e) => {
      if (e.key === "Escape") { e.preventDefault(); answer("cancel", {}); }
      else if (e.key === "Enter" && e.target.tagName === "INPUT") { e.preventDefault(); form.requestSubmit(); }
    });
    return form;
  }

  function answered(event, questions) {
    if (event.action !== "accept") {
      const what = event.action === "decline" ? "You pressed Decline" : "You closed the form without answering (cancel)";
      return el("p", { class: "answered" }, `${what}.`);
    }
    if (questions.some((question) => question.mode === "url")) {
      return el("p", { class: "answered" }, "You opened the page (accept); what you type there goes to the server only.");
    }
    const said = [];
    for (const question of questions) {
      const props = (question.schema && question.schema.properties) || {};
      for (const [name, value] of Object.entries(event.contents[question.key] || {})) {
        const schema = props[name] || {};
        const option = (schema.oneOf || []).find((o) => o.const === value);
        said.push(`${schema.title || name}: ${option ? option.title : value === true ? "yes" : value === false ? "no" : value}`);
      }
    }
    return el("p", { class: "answered" }, `You answered: ${said.join("; ")}.`);
  }

  /* What the model receives from one call. */
  function result(event) {
    if (event.error) {
      return el("article", { class: "result", "data-outcome": "protocol-error" },
        el("div", { class: "line" }, badge(`JSON-RPC error ${event.error.code}`, "bad")),
        el("p", { class: "error-text" }, `${event.error.message}. The call failed as a protocol error: the host gets an error, the model gets no tool result, and nothing was created.`));
    }
    const s = event.structured || {};
    const rows = [];
    if (s.outcome) rows.push(["outcome", s.outcome]);
    if (s.ticket) rows.push(["ticket", `${s.ticket.ticket_id} · ${s.ticket.stage} · ${(s.ticket.refund && s.ticket.refund.display) || ""}`]);
    if (s.reason) rows.push(["reason", s.reason]);
    if (s.next_step) rows.push(["next step", s.next_step]);
    return el("article", { class: "result", "data-outcome": event.is_error ? "tool-error" : s.outcome || "" },
      el("div", { class: "line" }, badge(`isError: ${event.is_error}`, event.is_error ? "bad" : "ok"), s.outcome ? badge(`outcome: ${s.outcome}`, NONE.includes(s.outcome) ? "bad" : "ok") : null),
      event.is_error ? el("p", { class: "error-text" }, event.text) : null,
      rows.length ? el("dl", {}, rows.map(([k, v]) => [el("dt", {}, k), el("dd", {}, v)])) : null,
      el("details", {}, el("summary", {}, "Text content and structuredContent"), el("pre", {}, event.text)));
  }

  return { el, badge, wireRow, askForm, answered, result, duration, stamp, urlPage, accountCheck, NONE };
})();
