// Signing out (docs/api.md, "Accounts and tokens"): on a shared device the
// next person must find nothing of the last one. Signing out ends the
// profile's token on the server (or every token of it: "sign out
// everywhere"), then forgets everything this browser kept for the person:
// the profile, the seats of every room (dicecup.seat.CODE, in both
// storages), the name typed last, the rooms notified, and the browser's push
// subscription (its turn notifications would otherwise reach the next
// person). Device settings stay: the language and the sound switch.
import { DicecupError, api } from './api.js';

const PERSONAL = ['dicecup.profile', 'dicecup.name', 'dicecup.seat.', 'dicecup.push.'];

/** Forget every per-person key of this browser's storage (both of them). */
export async function forgetPerson() {
  for (const store of [localStorage, sessionStorage]) {
    for (const key of Object.keys(store)) {
      if (PERSONAL.some((prefix) => key === prefix || (prefix.endsWith('.') && key.startsWith(prefix)))) store.removeItem(key);
    }
  }
  try {
    const registration = 'serviceWorker' in navigator ? await navigator.serviceWorker.getRegistration() : null;
    const subscription = registration && registration.pushManager ? await registration.pushManager.getSubscription() : null;
    if (subscription) await subscription.unsubscribe();
  } catch {
    // no push here: nothing to drop
  }
}

/** End this token (`everywhere`: every token of the profile) on the server, then forget the person here. */
export async function signOut(token, everywhere = false) {
  try {
    await api.request('DELETE', everywhere ? 'api/sessions' : 'api/sessions/current', { token });
  } catch (error) {
    if (!(error instanceof DicecupError && error.status === 401)) throw error; // already ended: forget it all the same
  }
  await forgetPerson();
}
