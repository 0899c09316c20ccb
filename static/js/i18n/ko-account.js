// Korean messages of account recovery — the e-mail address, a forgotten password and
// the pages of the mailed links (merged into `ko.js` by `i18n.js`). `{name}` marks a
// parameter of `t()`.
export default {
  'account.email.title': '이메일 주소',
  'account.email.intro': '선택 사항: 확인된 주소가 있으면 비밀번호를 잊었을 때 새로 정할 수 있습니다. 다른 사람에게는 보이지 않습니다.',
  'account.email.label': '이메일 주소',
  'account.email.password': '비밀번호',
  'account.email.button': '저장하고 확인 링크 보내기',
  'account.email.none': '아직 주소가 없습니다.',
  'account.email.verified': '{email} — 확인됨.',
  'account.email.unverified': '{email} — 아직 확인되지 않음: 보낸 메일의 링크를 여세요.',
  'account.email.sent': '{email}(으)로 링크를 보냈습니다. 열면 주소가 확인됩니다.',
  'account.forgot.summary': '비밀번호를 잊으셨나요?',
  'account.forgot.title': '이메일로 새 비밀번호 정하기',
  'account.forgot.intro': '이름이나 확인된 이메일 주소를 입력하세요. 새 비밀번호를 정하는 링크를 보냅니다.',
  'account.forgot.label': '이름 또는 이메일 주소',
  'account.forgot.button': '링크 보내기',
  'account.forgot.sent': '그 이름이나 주소의 계정이 있으면 링크를 보냈습니다. 한 시간 동안 한 번만 쓸 수 있습니다.',
  'account.link.toAccount': '계정 페이지로',
  'account.link.checking': '링크를 확인하는 중…',
  'account.reset.title': '새 비밀번호 정하기',
  'account.reset.button': '비밀번호 설정',
  'account.reset.done': '비밀번호를 설정했고 모든 기기에서 로그아웃했습니다. 새 비밀번호로 로그인하세요.',
  'account.error.no_mail': '이 서버는 메일을 보내지 않습니다. 관리자에게 비밀번호 재설정을 부탁하세요.',
  'account.error.bad_link': '알 수 없거나 이미 쓴, 또는 기한이 지난 링크입니다. 새 링크를 요청하세요.',
  'account.error.bad_email': '이메일 주소가 아닙니다.',
  'account.error.mail_failed': '메일을 보내지 못했습니다. 나중에 다시 시도하세요.',
};
