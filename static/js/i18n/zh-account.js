// Simplified Chinese messages of account recovery — the e-mail address, a forgotten password and
// the pages of the mailed links (merged into `zh.js` by `i18n.js`). `{name}` marks a
// parameter of `t()`.
export default {
  'account.email.title': '电子邮箱',
  'account.email.intro': '可选：有已确认的邮箱，忘记密码时就能设置新密码。邮箱不会显示给任何人。',
  'account.email.label': '电子邮箱',
  'account.email.password': '密码',
  'account.email.button': '保存并发送确认链接',
  'account.email.none': '还没有邮箱。',
  'account.email.verified': '{email}（已确认）',
  'account.email.unverified': '{email}（尚未确认：请打开邮件中的链接）',
  'account.email.sent': '链接已发往 {email}：打开它即可确认邮箱。',
  'account.forgot.summary': '忘记密码了？',
  'account.forgot.title': '通过邮件设置新密码',
  'account.forgot.intro': '填写名字或已确认的邮箱：我们会发送设置新密码的链接。',
  'account.forgot.label': '名字或电子邮箱',
  'account.forgot.button': '发送链接',
  'account.forgot.sent': '如果有这个名字或邮箱的账号，链接已经发出。它在一小时内可用一次。',
  'account.link.toAccount': '前往账号页面',
  'account.link.checking': '正在检查链接…',
  'account.reset.title': '设置新密码',
  'account.reset.button': '设置密码',
  'account.reset.done': '密码已设置，所有设备都已退出登录：请用新密码登录。',
  'account.error.no_mail': '这个服务器不发送邮件：请联系管理员重置密码。',
  'account.error.bad_link': '这个链接无效、已用过或已过期：请重新申请。',
  'account.error.bad_email': '这不是电子邮箱地址。',
  'account.error.mail_failed': '邮件没能发出：请稍后再试。',
};
