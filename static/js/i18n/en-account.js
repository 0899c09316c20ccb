// English messages of account recovery — the e-mail address, a forgotten password and
// the pages of the mailed links (merged into `en.js` by `i18n.js`). `{name}` marks a
// parameter of `t()`.
export default {
  'account.email.title': 'E-mail address',
  'account.email.intro': 'Optional: with a confirmed address you can set a new password if you forget yours. It is shown to nobody.',
  'account.email.label': 'E-mail address',
  'account.email.password': 'Your password',
  'account.email.button': 'Save and send a link',
  'account.email.none': 'No address yet.',
  'account.email.verified': '{email} — confirmed.',
  'account.email.unverified': '{email} — not confirmed yet: open the link we mailed.',
  'account.email.sent': 'A link is on its way to {email}: open it to confirm the address.',
  'account.forgot.summary': 'Forgot your password?',
  'account.forgot.title': 'A new password by e-mail',
  'account.forgot.intro': 'Give your name or your confirmed e-mail address: we mail a link to set a new password.',
  'account.forgot.label': 'Name or e-mail address',
  'account.forgot.button': 'Send the link',
  'account.forgot.sent': 'If an account has that name or address, a link is on its way. It works once, for an hour.',
  'account.link.toAccount': 'To the account page',
  'account.link.checking': 'Checking the link…',
  'account.reset.title': 'Choose a new password',
  'account.reset.button': 'Set the password',
  'account.reset.done': 'Your password is set, and every device was logged out: log in with it.',
  'account.error.no_mail': 'This server sends no e-mail: ask its admin to reset your password.',
  'account.error.bad_link': 'This link is unknown, used or out of date: ask for a new one.',
  'account.error.bad_email': 'That is not an e-mail address.',
  'account.error.mail_failed': 'The mail could not be sent: try again later.',
};
