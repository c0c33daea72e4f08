/* The voicemail backlog page: a pushed body numbered below the one the page shows
 * (`data-version`, dashboard/inbound/handled.py) was rendered before it, maybe before a
 * message was marked handled, and is dropped, so a handled message never comes back. */
(() => {
  const NUMBERED = /^\s*<div id="voicemail-body" data-version="(\d+)"/;
  document.body.addEventListener("htmx:wsBeforeMessage", (e) => {
    const pushed = NUMBERED.exec(e.detail.message);
    const shown = document.getElementById("voicemail-body");
    if (pushed && shown && Number(pushed[1]) < Number(shown.dataset.version)) {
      e.preventDefault();
    }
  });
})();
