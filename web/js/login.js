/**
 * Login: the token is checked with GET /api/v1/status; a wrong one shows the server's error
 * message. On success the token is kept in sessionStorage (this tab only) and `onLogin(status)`
 * runs; Log out forgets it and shows the form again.
 */
import { apiCall, clearToken, getToken, setToken } from './api.js';

/**
 * Wires the login form and the logout button.
 * @param {{ onLogin: (status: any) => void, onLogout: () => void }} handlers
 * @returns {{ tryStoredToken: () => Promise<void>, showLogin: (message?: string) => void }}
 */
export function setupLogin({ onLogin, onLogout }) {
  const section = document.getElementById('login');
  const form = /** @type {HTMLFormElement} */ (document.getElementById('login-form'));
  const input = /** @type {HTMLInputElement} */ (document.getElementById('token'));
  const error = document.getElementById('login-error');
  const logout = document.getElementById('logout');

  const showLogin = (message = '') => {
    section.hidden = false;
    logout.hidden = true;
    error.textContent = message;
    input.value = '';
    input.focus();
  };

  const check = async (token) => {
    const status = await apiCall('GET', '/status', undefined, token);
    setToken(token);
    section.hidden = true;
    logout.hidden = false;
    error.textContent = '';
    onLogin(status);
  };

  form.addEventListener('submit', async (event) => {
    event.preventDefault();
    const token = input.value.trim();
    if (!token) {
      error.textContent = 'Enter a token.';
      input.focus();
      return;
    }
    try {
      await check(token);
    } catch (e) {
      error.textContent = e.message;
      input.select();
    }
  });

  logout.addEventListener('click', () => {
    clearToken();
    onLogout();
    showLogin('Logged out.');
  });

  return {
    showLogin,
    tryStoredToken: async () => {
      const token = getToken();
      if (!token) {
        showLogin();
        return;
      }
      try {
        await check(token);
      } catch (e) {
        clearToken();
        showLogin(e.message);
      }
    },
  };
}
