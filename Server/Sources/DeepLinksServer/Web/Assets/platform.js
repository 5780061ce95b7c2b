// The touch check of a smart link's probe page (SmartLinkPages.probe): iPadOS reports touch points, a Mac none.
"use strict";
(function () {
  var answer = navigator.maxTouchPoints > 1 ? "ipad" : "mac";
  location.replace(location.pathname + (location.search ? location.search + "&" : "?") + "_platform=" + answer);
})();
