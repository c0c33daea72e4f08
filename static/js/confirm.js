/* Confirmation before an action on a pushed page (start or stop a campaign, mark a booking
 * as handled).
 *
 * The buttons sit in fragments the server pushes (rendered once for every Manager), so
 * each carries what the dialog says and where it posts: data-title, data-text,
 * data-confirm (the confirming button's words), data-action (the URL) and, when the action
 * takes a note, data-note (the note's label). The page holds one <dialog id="confirm">
 * with the form and this person's CSRF token, outside what pushes replace: a push never
 * closes it or loses a note being typed. The dialog is modal (focus stays in it), Escape
 * or Cancel closes it, and focus goes back to the button that opened it.
 */
(() => {
  "use strict";

  const dialog = document.getElementById("confirm");
  if (!dialog) return;
  const form = dialog.querySelector("form");
  const note = form.elements.note;
  const noteBox = dialog.querySelector(".confirm-note");
  const submit = dialog.querySelector(".confirm-submit");
  let opener = "";

  document.addEventListener("click", (e) => {
    const button = e.target.closest("button[data-confirm]");
    if (!button) return;
    const d = button.dataset;
    opener = d.action;
    form.action = d.action;
    dialog.querySelector("#confirm-title").textContent = d.title;
    dialog.querySelector("#confirm-text").textContent = d.text;
    submit.textContent = d.confirm;
    submit.disabled = false;
    const wantsNote = d.note !== undefined;
    noteBox.hidden = !wantsNote;
    note.disabled = !wantsNote;
    note.required = wantsNote;
    note.value = "";
    noteBox.querySelector("span").textContent = d.note || "";
    dialog.showModal();
    (wantsNote ? note : submit).focus();
  });

  dialog.querySelector(".confirm-cancel").addEventListener("click", () => dialog.close());

  // One POST per confirmation: the service is asked once, however often the button is hit.
  form.addEventListener("submit", () => {
    submit.disabled = true;
    submit.textContent = "Asking the service…";
  });

  // The opening button may have been replaced by a push meanwhile: find it by its action.
  dialog.addEventListener("close", () => {
    const back = document.querySelector(`button[data-action="${CSS.escape(opener)}"]`);
    if (back) back.focus();
  });
})();
