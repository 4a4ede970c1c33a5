// The word list beside an answer: the page carries only its heading and a link (_vocab_stub.html);
// the whole list, /vocab/panel (the same HTML on every page, kept by the browser), takes its place.
(function () {
  var stub = document.querySelector("aside.vocab[data-panel]");
  if (!stub || !window.fetch) { return; }
  fetch(stub.getAttribute("data-panel")).then(function (r) { return r.ok ? r.text() : ""; })
    .then(function (html) { if (html.indexOf('<aside class="vocab"') >= 0) { stub.outerHTML = html; } }, function () {});
})();
