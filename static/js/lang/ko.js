// The whole Korean table: `i18n/ko.js` and the tables beside it, in one module
// so that a page loads only its reader's language (i18n.js).
import ko from '../i18n/ko.js';
import koGames from '../i18n/ko-games.js';
import koPlay from '../i18n/ko-play.js';
import koAccount from '../i18n/ko-account.js';
import koLearn from '../i18n/ko-learn.js';
import koMod from '../i18n/ko-mod.js';
import koAnalysis from '../i18n/ko-analysis.js';
import koControls from '../i18n/ko-controls.js';
import koReview from '../i18n/ko-review.js';
import koErrors from '../i18n/ko-errors.js';

export default {
  ...ko, ...koGames, ...koPlay, ...koAccount, ...koLearn, ...koMod, ...koAnalysis, ...koControls, ...koReview, ...koErrors,
};
