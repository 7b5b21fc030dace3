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

  /* A row of the wire pane. */
  function wireRow(entry, copy) {
    if (entry.kind === "http") {
      const what = entry.http === "GET" ? "open a stream for server messages" : entry.http === "DELETE" ? "end the session" : "";
      return el("li", { class: "msg out http", "data-seq": entry.seq },
        el("div", { class: "line" }, el("span", { class: "dir" }, "→"), badge(`${entry.http} /mcp`, "http"), el("span", { class: "note" }, what), el("span", { class: "http-status" })));
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
      el("div", { class: "line" }, el("span", { class: "dir", title: entry.direction === "out" ? "client to server" : "server to client" }, arrow), summary(entry), el("span", { class: "http-status" })),
      sealedFacts(entry),
      el("div", { class: "more" }, el("details", {}, el("summary", {}, "JSON"), el("pre", {}, json(entry.message))), copyButtons(entry, copy))
    );
  }

  /* One field of a form, from its JSON Schema: titled choices (oneOf or enum), a boolean, or text. */
  function field(key, name, schema, required, suggested) {
    const id = `${key}::${name}`.replace(/[^A-Za-z0-9_-]/g, "_");
    const title = schema.title || name;
    const description = schema.description ? el("span", { class: "description" }, ` ${schema.description}`) : null;
    const options = schema.oneOf || (schema.enum || []).map((value) => ({ const: value, title: String(value) }));
    if (options.length) {
      return el("div", { class: "field", role: "radiogroup", "aria-label": title },
        el("span", { class: "label" }, el("strong", {}, title), description),
        options.map((option, index) => el("label", { class: "choice" },
          el("input", { type: "radio", name: id, value: JSON.stringify(option.const), "data-field": name, required: required && index === 0,
            checked: suggested !== undefined && suggested === option.const }),
          option.title || String(option.const))));
    }
    if (schema.type === "boolean") {
      return el("div", { class: "field" },
        el("label", { class: "choice" }, el("input", { type: "checkbox", name: id, "data-field": name, checked: suggested === true }), el("strong", {}, title)),
        description);
    }
    const type = schema.type === "integer" || schema.type === "number" ? "number" : "text";
    return el("div", { class: "field" },
      el("label", { class: "label", for: id }, title), description,
      el("input", { id, type, name: id, "data-field": name, required, value: suggested === undefined ? "" : suggested }));
  }

  /* The person's form for one round: every question together, with accept (submit), decline and cancel. */
  function askForm(event, modern, answer) {
    const suggested = event.suggested || {};
    const count = event.questions.length;
    const header = modern
      ? [`Round of ${count} question${count === 1 ? "" : "s"} (input_required)`, event.expires_at ? el("span", { class: "countdown", "data-expires": event.expires_at }) : null]
      : ["elicitation/create, sent while the call waits"];
    const form = el("form", { class: "ask", "data-ask": event.ask, "aria-label": "The server asks" },
      el("p", { class: "round" }, header),
      event.questions.map((question, index) => {
        const props = (question.schema && question.schema.properties) || {};
        const required = (question.schema && question.schema.required) || [];
        return el("fieldset", { class: "question", "data-key": question.key },
          el("legend", {}, `${index + 1} of ${count} · ${question.key}`),
          el("p", { class: "message" }, question.message),
          Object.entries(props).map(([name, schema]) => field(question.key, name, schema, required.includes(name), suggested.action === "accept" ? suggested[name] : undefined)));
      }),
      el("div", { class: "actions" },
        el("button", { type: "submit", class: `primary${suggested.action === "accept" ? " suggested" : ""}` }, "Submit"),
        el("button", { type: "button", "data-action": "decline", class: suggested.action === "decline" ? "suggested" : "" }, "Decline"),
        el("button", { type: "button", "data-action": "cancel", class: suggested.action === "cancel" ? "suggested" : "" }, "Cancel"),
        el("span", { class: "hint" }, "Enter submits · Escape cancels")));
    const contents = () => {
      const found = {};
      for (const fieldset of form.querySelectorAll("fieldset.question")) {
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
    form.addEventListener("submit", (e) => { e.preventDefault(); answer("accept", contents()); });
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
      return el("p", { class: "answered" }, `You pressed ${event.action === "decline" ? "Decline" : "Cancel"}.`);
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

  return { el, badge, wireRow, askForm, answered, result, duration, NONE };
})();
