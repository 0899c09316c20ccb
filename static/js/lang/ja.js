// The whole Japanese table: `i18n/ja.js` and the tables beside it, in one module
// so that a page loads only its reader's language (i18n.js).
import ja from '../i18n/ja.js';
import jaGames from '../i18n/ja-games.js';
import jaPlay from '../i18n/ja-play.js';
import jaAccount from '../i18n/ja-account.js';
import jaLearn from '../i18n/ja-learn.js';
import jaMod from '../i18n/ja-mod.js';
import jaAnalysis from '../i18n/ja-analysis.js';
import jaControls from '../i18n/ja-controls.js';
import jaReview from '../i18n/ja-review.js';
import jaErrors from '../i18n/ja-errors.js';

export default {
  ...ja, ...jaGames, ...jaPlay, ...jaAccount, ...jaLearn, ...jaMod, ...jaAnalysis, ...jaControls, ...jaReview, ...jaErrors,
};
