/* Forms that arrived over the socket were rendered once for every browser, so they carry
 * no CSRF token: each gets this page's own as it is submitted. */

document.addEventListener("submit", (e) => {
  const form = e.target;
  if (form.method !== "post" || form.elements.csrfmiddlewaretoken) return;
  const headers = JSON.parse(document.body.getAttribute("hx-headers") || "{}");
  const token = document.createElement("input");
  token.type = "hidden";
  token.name = "csrfmiddlewaretoken";
  token.value = headers["X-CSRFToken"] || "";
  form.appendChild(token);
});
