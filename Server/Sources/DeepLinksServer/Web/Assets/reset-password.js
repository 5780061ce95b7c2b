// The reset page (ResetLandingPage): reads the token from the fragment or the query under the configured route's
// parameter names, takes it out of the address bar, checks it, and posts the forms as JSON. Reads `name=value` pairs
// with percent-decoding only: a `+` stays a `+` (the browser's search-parameter API would make it a space).
'use strict';
(function () {
  function pairs(text) {
    var out = {};
    text.split('&').forEach(function (pair) {
      var at = pair.indexOf('=');
      if (at < 1) return;
      try { out[decodeURIComponent(pair.slice(0, at))] = decodeURIComponent(pair.slice(at + 1)); } catch (e) { }
    });
    return out;
  }
  var page = document.getElementById('page');
  var form = document.getElementById('reset');
  var again = document.getElementById('again');
  var againForm = document.getElementById('again-form');
  var againTitle = document.getElementById('again-title');
  var againStatus = document.getElementById('again-status');
  var done = document.getElementById('done');
  var status = document.getElementById('status');
  var passwordError = document.getElementById('password-error');
  // The configured route's parameter names (the demo app's token is `token`).
  var tokenName = form.dataset.tokenParameter, emailName = form.dataset.emailParameter;
  var token = form.elements.token.value, email = form.elements.email.value;
  function post(path, body) {
    return fetch(path, {
      method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(body),
      credentials: 'omit', referrerPolicy: 'no-referrer', cache: 'no-store'
    });
  }
  function wait(response) { return response.headers.get('Retry-After') || 'a few'; }
  function show(state) {
    form.hidden = state !== 'form';
    again.hidden = state !== 'start' && state !== 'expired';
    done.hidden = state !== 'done';
    if (state === 'start') {
      againTitle.textContent = 'Get a reset link';
      status.textContent = 'Enter the address of your account: a link to choose a new password arrives in a minute.';
    } else if (state === 'expired') {
      againTitle.textContent = 'This link has expired or was already used';
      status.textContent = 'This link cannot be used any more: ask for a new one.';
      againForm.elements.email.value = email;
    }
  }
  var reasons = {
    too_short: 'Use a longer password.', too_long: 'Use at most 256 characters.',
    common: 'This password is too common.', contains_email: 'Do not use your email address.',
    contains_context_word: 'Do not use the app\u2019s name.', repetitive: 'Avoid repeated or sequential characters.'
  };
  var unsaved = 'We could not save your new password just now. Your link still works: try again in a moment.';
  // The handlers first: whatever the link holds, both forms work.
  form.addEventListener('submit', function (event) {
    event.preventDefault();
    passwordError.textContent = '';
    var body = { token: token, password: form.elements.password.value };
    if (email) body.email = email;
    post('/v1/password-resets/confirm', body).then(function (response) {
      if (response.status === 204) {
        token = '';
        form.elements.token.value = '';
        form.elements.password.value = '';
        show('done');
        status.textContent = 'Done.';
      } else if (response.status === 422) {
        response.json().then(function (body) {
          passwordError.textContent = (body.reasons || []).map(function (r) { return reasons[r] || r; }).join(' ');
        });
      } else if (response.status === 429) {
        passwordError.textContent = 'Too many attempts: wait ' + wait(response) + ' seconds, then try again.';
      } else if (response.status === 503 || response.status === 409) {
        passwordError.textContent = unsaved;
      } else {
        show('expired');
      }
    }, function () { passwordError.textContent = 'Cannot reach the server. Try again.'; });
  });
  againForm.addEventListener('submit', function (event) {
    event.preventDefault();
    againStatus.textContent = 'Sending\u2026';
    post('/v1/password-resets', { email: againForm.elements.email.value }).then(function (response) {
      if (response.status === 202) {
        againStatus.textContent = 'If an account uses this address, a link is on its way. It works for ' + page.dataset.lifetime + ' minutes, once.';
      } else if (response.status === 429) {
        againStatus.textContent = 'Too many requests: wait ' + wait(response) + ' seconds, then try again.';
      } else if (response.status === 400) {
        againStatus.textContent = 'This is not an address we can send to: check it and try again.';
      } else {
        againStatus.textContent = 'Something went wrong (' + response.status + '): try again in a minute.';
      }
    }, function () { againStatus.textContent = 'Cannot reach the server. Try again.'; });
  });
  // A link opened here, now or later in the same tab (a new fragment is a `hashchange`).
  function readLink() {
    var link = pairs(location.hash.slice(1)), query = pairs(location.search.slice(1));
    var fresh = link[tokenName] || query[tokenName];
    if (fresh) {
      token = fresh;
      email = (emailName && (link[emailName] || query[emailName])) || '';
    }
    // The secret leaves the address bar, the history and any later Referer.
    if (location.hash || location.search) history.replaceState(null, '', location.pathname);
    if (!fresh && page.dataset.state !== 'initial') return;
    page.dataset.state = 'initial';
    if (!token) { show('start'); return; }
    if (!/^[A-Za-z0-9_-]{43,128}$/.test(token)) { show('expired'); return; }
    form.elements.token.value = token;
    form.elements.email.value = email;
    form.elements.username.value = email;
    passwordError.textContent = '';
    show('form');
    status.textContent = 'Checking your link\u2026';
    var checked = token;
    post('/v1/password-resets/verify', { token: token }).then(function (response) {
      if (checked !== token) return;
      if (!response.ok) { show('expired'); return; }
      return response.json().then(function (body) { status.textContent = 'For the account ' + body.email + '.'; });
    }, function () { status.textContent = 'Cannot reach the server; you can still try.'; });
  }
  window.addEventListener('hashchange', readLink);
  readLink();
})();
