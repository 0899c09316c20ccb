// Japanese messages of account recovery — the e-mail address, a forgotten password and
// the pages of the mailed links (merged into `ja.js` by `i18n.js`). `{name}` marks a
// parameter of `t()`.
export default {
  'account.email.title': 'メールアドレス',
  'account.email.intro': '任意です。確認済みのアドレスがあれば、パスワードを忘れても新しく設定できます。ほかの人には表示されません。',
  'account.email.label': 'メールアドレス',
  'account.email.password': 'パスワード',
  'account.email.button': '保存して確認リンクを送る',
  'account.email.none': 'まだアドレスがありません。',
  'account.email.verified': '{email}（確認済み）',
  'account.email.unverified': '{email}（未確認：送ったメールのリンクを開いてください）',
  'account.email.sent': '{email} にリンクを送りました。開くとアドレスが確認されます。',
  'account.forgot.summary': 'パスワードを忘れましたか？',
  'account.forgot.title': 'メールで新しいパスワードを設定',
  'account.forgot.intro': '名前か確認済みのメールアドレスを入れてください。新しいパスワードを設定するリンクを送ります。',
  'account.forgot.label': '名前またはメールアドレス',
  'account.forgot.button': 'リンクを送る',
  'account.forgot.sent': 'その名前かアドレスのアカウントがあれば、リンクを送りました。1時間のあいだ1回だけ使えます。',
  'account.link.toAccount': 'アカウントのページへ',
  'account.link.checking': 'リンクを確認しています…',
  'account.reset.title': '新しいパスワードを決める',
  'account.reset.button': 'パスワードを設定',
  'account.reset.done': 'パスワードを設定し、すべての端末からログアウトしました。新しいパスワードでログインしてください。',
  'account.error.no_mail': 'このサーバーはメールを送りません。管理者にパスワードのリセットを頼んでください。',
  'account.error.bad_link': 'このリンクは無効か、使用済みか、期限切れです。もう一度リンクを求めてください。',
  'account.error.bad_email': 'メールアドレスの形になっていません。',
  'account.error.mail_failed': 'メールを送れませんでした。しばらくしてからもう一度どうぞ。',
};
