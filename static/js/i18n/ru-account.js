// Russian messages of account recovery — the e-mail address, a forgotten password and
// the pages of the mailed links (merged into `ru.js` by `i18n.js`). `{name}` marks a
// parameter of `t()`.
export default {
  'account.email.title': 'Адрес почты',
  'account.email.intro': 'Необязательно: с подтверждённым адресом можно задать новый пароль, если забудете свой. Адрес никому не показывается.',
  'account.email.label': 'Адрес почты',
  'account.email.password': 'Ваш пароль',
  'account.email.button': 'Сохранить и прислать ссылку',
  'account.email.none': 'Адреса пока нет.',
  'account.email.verified': '{email} — подтверждён.',
  'account.email.unverified': '{email} — ещё не подтверждён: откройте ссылку из письма.',
  'account.email.sent': 'Ссылка отправлена на {email}: откройте её, чтобы подтвердить адрес.',
  'account.forgot.summary': 'Забыли пароль?',
  'account.forgot.title': 'Новый пароль по почте',
  'account.forgot.intro': 'Укажите имя или подтверждённый адрес почты: мы пришлём ссылку, чтобы задать новый пароль.',
  'account.forgot.label': 'Имя или адрес почты',
  'account.forgot.button': 'Прислать ссылку',
  'account.forgot.sent': 'Если есть учётная запись с таким именем или адресом, ссылка уже в пути. Она работает один раз в течение часа.',
  'account.link.toAccount': 'На страницу учётной записи',
  'account.link.checking': 'Проверяем ссылку…',
  'account.reset.title': 'Новый пароль',
  'account.reset.button': 'Задать пароль',
  'account.reset.done': 'Пароль задан, все устройства вышли из учётной записи: войдите с новым паролем.',
  'account.error.no_mail': 'Этот сервер не отправляет почту: попросите его администратора сбросить пароль.',
  'account.error.bad_link': 'Ссылка неизвестна, уже использована или устарела: запросите новую.',
  'account.error.bad_email': 'Это не адрес почты.',
  'account.error.mail_failed': 'Письмо не удалось отправить: попробуйте позже.',
};
