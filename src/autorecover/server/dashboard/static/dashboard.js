// autorecover dashboard: live updates (Server-Sent Events) and the fleet grid's clicks.
// No framework, nothing fetched from elsewhere; the pages work without it, only less live.
"use strict";
(function () {
  var root = "/ui";
  var pending = false;
  var busy = false;

  function typing() {
    // A half-written reason must not be wiped by a refresh: wait until it is sent or cleared.
    var active = document.activeElement;
    if (active && (active.tagName === "INPUT" || active.tagName === "SELECT")) return true;
    var inputs = document.querySelectorAll("main input[name=why]");
    for (var i = 0; i < inputs.length; i++) if (inputs[i].value) return true;
    return false;
  }

  function refresh() {
    if (busy) { pending = true; return; }
    if (typing()) { pending = true; setTimeout(again, 1000); return; }
    busy = true;
    pending = false;
    fetch(location.href, { credentials: "same-origin", headers: { "Accept": "text/html" } })
      .then(function (r) { return r.ok ? r.text() : null; })
      .then(function (text) {
        if (text === null) return;
        var doc = new DOMParser().parseFromString(text, "text/html");
        var fresh = doc.querySelector("main");
        var main = document.querySelector("main");
        if (fresh && main) main.innerHTML = fresh.innerHTML;
        window.autorecoverUpdates = (window.autorecoverUpdates || 0) + 1;
      })
      .catch(function () { pending = true; })
      .then(function () { busy = false; if (pending) again(); });
  }

  function again() { if (pending) refresh(); }

  function recolour(data) {
    // The nodes that moved, with their cells' classes: coloured at once, before the refresh.
    var moved;
    try { moved = JSON.parse(data).nodes || {}; } catch (e) { return; }
    for (var name in moved) {
      var cell = document.querySelector('#fleet i[title="' + CSS.escape(name) + '"]');
      if (cell) cell.className = moved[name] + (cell.classList.contains("m") ? " m" : "");
    }
  }

  function live() {
    var dot = document.getElementById("live");
    if (!dot || !window.EventSource) return;
    var source = new EventSource(root + "/events");
    source.onopen = function () { dot.className = "live on"; };
    source.addEventListener("hello", function () { dot.className = "live on"; });
    source.addEventListener("change", function (event) {
      dot.className = "live on";
      recolour(event.data);
      refresh();
    });
    source.onerror = function () { dot.className = "live off"; };
  }

  function grid() {
    document.addEventListener("click", function (event) {
      var cell = event.target;
      if (!cell || cell.tagName !== "I" || !cell.title || !cell.closest("#fleet")) return;
      location.href = root + "/nodes/" + encodeURIComponent(cell.title);
    });
  }

  document.addEventListener("DOMContentLoaded", function () { grid(); live(); });
})();
