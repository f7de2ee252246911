// The home page's form: open a table (registering the viewer first if they have no key).
import { api, apiKey, setApiKey, showError } from "./api.js";

const form = document.getElementById("create-form");
const failure = document.getElementById("create-error");

async function whoAmI() {
  const register = document.getElementById("register");
  if (!apiKey()) {
    register.hidden = false;
    return;
  }
  try {
    const me = await api("/v1/players/me");
    document.getElementById("who-am-i").textContent = `You are ${me.name}.`;
  } catch (error) {
    register.hidden = false;
    showError(failure, error);
  }
}

form.addEventListener("submit", async (event) => {
  event.preventDefault();
  failure.textContent = "";
  try {
    if (!apiKey()) {
      const name = document.getElementById("player-name").value.trim();
      const made = await api("/v1/players", { method: "POST", body: { name }, key: null });
      setApiKey(made.api_key);
    }
    const seats = Number(document.getElementById("seats").value);
    const botCount = Number(document.getElementById("bots").value);
    const level = document.getElementById("level").value;
    // The creator takes seat 0; bots take the last seats.
    const bots = Array.from({ length: botCount }, (_, i) => ({ seat: seats - 1 - i, level }));
    const game = await api("/v1/games", {
      method: "POST",
      body: { type: document.getElementById("game-type").value, seats, bots },
      headers: { "Idempotency-Key": crypto.randomUUID() },
    });
    window.location.assign(`/games/${game.id}`);
  } catch (error) {
    showError(failure, error);
  }
});

whoAmI();
