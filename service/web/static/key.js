// The key form in every page's header: the viewer's API key, kept in this browser only.
import { apiKey, setApiKey } from "./api.js";

const form = document.getElementById("key-form");
const input = document.getElementById("api-key");
input.value = apiKey() || "";
form.addEventListener("submit", (event) => {
  event.preventDefault();
  setApiKey(input.value.trim());
  window.location.reload();
});
form.hidden = false; // shown only when this script runs: it keeps the key in the browser
document.getElementById("forget-key").addEventListener("click", () => {
  setApiKey(null);
  window.location.reload();
});
