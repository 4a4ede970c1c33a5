// Completion for the query box: the word being typed is completed from /api/vocab (the JSON of
// `recipekg vocab`), by what comes before it: a statement, a kind, a choice, a dimension, a value.
(function () {
  var box = document.getElementById("q"), list = document.getElementById("q-complete");
  if (!box || !list || !window.fetch) { return; }
  var vocab = null, items = [], active = -1;
  fetch("{{ url_for('api_vocab') }}").then(function (r) { return r.json(); }).then(function (doc) { vocab = doc; });
  function dimension(name) {
    for (var i = 0; i < vocab.dimensions.length; i++) {
      var d = vocab.dimensions[i];
      if (d.name === name || d.aliases.indexOf(name) >= 0) { return d; }
    }
    return null;
  }
  function candidates(before) {
    var words = before.toLowerCase().split(/[\s(),]+/).filter(Boolean);
    var last = words[words.length - 1] || "", prev = words[words.length - 2] || "";
    if (!words.length || words[words.length - 1] === ";") { return vocab.statements; }
    if (last === "recommend") { return vocab.kinds.map(function (k) { return k.kind; }); }
    if (last === "explain") { return [].concat.apply([], vocab.kinds.map(function (k) { return k.choices.map(function (c) { return c.id; }); })); }
    if (last === "where" || last === "and") { return vocab.dimensions.map(function (d) { return d.name; }); }
    var op = vocab.operators.indexOf(last) >= 0 ? last : (vocab.operators.indexOf(prev) >= 0 && /[,(]\s*$/.test(before) ? prev : null);
    if (op) {
      var d = dimension(op === last ? prev : words[words.length - 3] || "");
      if (d && d['values']) { return d['values'].map(function (v) { return v.id; }); }
      if (d && d.example) { return [d.example.split(" = ")[1]]; }
      return [];
    }
    if (dimension(last)) { return ["=", "!=", "in"].concat(dimension(last).kind === "categorical" ? [] : ["<", "<=", ">", ">=", "between"]); }
    return ["and", "top"];
  }
  function close() { list.hidden = true; list.textContent = ""; items = []; active = -1; }
  function choose(word) {
    var at = box.selectionStart, text = box.value;
    var start = at; while (start > 0 && !/[\s(),]/.test(text[start - 1])) { start--; }
    box.value = text.slice(0, start) + word + " " + text.slice(at);
    box.selectionStart = box.selectionEnd = start + word.length + 1;
    close(); box.focus(); update();
  }
  function update() {
    if (!vocab) { return; }
    var at = box.selectionStart, text = box.value, start = at;
    while (start > 0 && !/[\s(),]/.test(text[start - 1])) { start--; }
    var typed = text.slice(start, at).toLowerCase();
    items = candidates(text.slice(0, start)).filter(function (c) { return c.indexOf(typed) === 0 && c !== typed; }).slice(0, 12);
    list.textContent = ""; active = -1;
    items.forEach(function (c, i) {
      var li = document.createElement("li");
      li.textContent = c; li.setAttribute("role", "option"); li.id = "q-complete-" + i;
      li.addEventListener("mousedown", function (e) { e.preventDefault(); choose(c); });
      list.appendChild(li);
    });
    list.hidden = !items.length;
  }
  function mark(i) {
    active = i;
    Array.prototype.forEach.call(list.children, function (li, j) { li.setAttribute("aria-selected", j === i ? "true" : "false"); });
  }
  // The list opens as the user types, and again when the box gets the focus back after that;
  // never for the page's own autofocus (a list of statements, by how fast the word list came).
  var typed = false;
  box.addEventListener("input", function () { typed = true; update(); });
  box.addEventListener("focus", function () { if (typed) { update(); } });
  box.addEventListener("blur", close);
  box.addEventListener("keydown", function (e) {
    if (list.hidden) { return; }
    if (e.key === "ArrowDown") { e.preventDefault(); mark((active + 1) % items.length); }
    else if (e.key === "ArrowUp") { e.preventDefault(); mark((active + items.length - 1) % items.length); }
    else if ((e.key === "Tab" || e.key === "Enter") && active >= 0) { e.preventDefault(); choose(items[active]); }
    else if (e.key === "Escape") { e.preventDefault(); close(); }  // a search box would clear its text
  });
})();
