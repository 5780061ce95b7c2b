// On the App Store button of a landing page: fetches a one-time deferred-link token and leaves it on the
// pasteboard, then goes on to the store. Safari keeps the tap's permission for a clipboard write whose content is
// still being fetched (a ClipboardItem of a promise). Whatever fails, the store opens within 1.5 s.
"use strict";
(function () {
  var button = document.getElementById("get-app");
  if (!button || !navigator.clipboard) return;
  button.addEventListener("click", function (event) {
    event.preventDefault();
    var store = button.href;
    var go = function () { window.location.href = store; };
    var text = fetch(button.getAttribute("data-deferred"), { method: "POST", credentials: "omit", cache: "no-store" })
      .then(function (response) { if (!response.ok) throw new Error("no token"); return response.json(); })
      .then(function (body) { return body.pasteboard; });
    var written = window.ClipboardItem && navigator.clipboard.write
      ? navigator.clipboard.write([new ClipboardItem({ "text/plain": text.then(function (t) { return new Blob([t], { type: "text/plain" }); }) })])
      : text.then(function (t) { return navigator.clipboard.writeText(t); });
    Promise.race([written, new Promise(function (resolve) { setTimeout(resolve, 1500); })]).then(go, go);
  });
})();
