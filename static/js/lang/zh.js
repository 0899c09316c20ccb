// The whole Simplified Chinese table: `i18n/zh.js` and the tables beside it, in one module
// so that a page loads only its reader's language (i18n.js).
import zh from '../i18n/zh.js';
import zhGames from '../i18n/zh-games.js';
import zhPlay from '../i18n/zh-play.js';
import zhAccount from '../i18n/zh-account.js';
import zhLearn from '../i18n/zh-learn.js';
import zhMod from '../i18n/zh-mod.js';
import zhAnalysis from '../i18n/zh-analysis.js';
import zhControls from '../i18n/zh-controls.js';
import zhReview from '../i18n/zh-review.js';
import zhErrors from '../i18n/zh-errors.js';

export default {
  ...zh, ...zhGames, ...zhPlay, ...zhAccount, ...zhLearn, ...zhMod, ...zhAnalysis, ...zhControls, ...zhReview, ...zhErrors,
};
