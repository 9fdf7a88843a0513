// The /ui timeline page's one script. The page reads without it; with it, a clicked bar
// (or a link to one fact, #f<n>) shows the fact and the turn that said it in a panel under
// the plot, and changing the scope, entity or as-of date shows the new choice at once. It
// copies the server's already-escaped nodes and never writes HTML from text.
"use strict";

function showFact(bar) {
  const entry = document.getElementById(bar.getAttribute("href").slice(1));
  const panel = document.getElementById("said");
  if (!entry || !panel) return false;
  panel.replaceChildren(...Array.from(entry.childNodes, (node) => node.cloneNode(true)));
  panel.hidden = false;
  document.querySelectorAll(".bar.chosen").forEach((b) => b.classList.remove("chosen"));
  bar.classList.add("chosen");
  return true;
}

function submitOnChange(form) {
  const scope = document.getElementById("scope");
  const entity = document.getElementById("entity");
  if (scope && entity) scope.addEventListener("change", () => { entity.value = ""; entity.disabled = true; form.submit(); });
  if (entity) entity.addEventListener("change", () => form.submit());
  const at = document.getElementById("at");
  if (at) at.addEventListener("change", () => { if (at.value) form.submit(); });
}

document.addEventListener("DOMContentLoaded", () => {
  document.querySelectorAll("a.bar").forEach((bar) =>
    bar.addEventListener("click", (event) => {
      if (showFact(bar)) { event.preventDefault(); history.replaceState(null, "", bar.getAttribute("href")); }
    }));
  // A link to one fact (the page's URL with #f3) opens with that fact's turn shown.
  const linked = location.hash && document.querySelector(`a.bar[href="${CSS.escape(location.hash)}"]`);
  if (linked) showFact(linked);
  const form = document.getElementById("pick");
  if (form) submitOnChange(form);
});
