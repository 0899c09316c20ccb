// The whole Russian table: `i18n/ru.js` and the tables beside it, in one module
// so that a page loads only its reader's language (i18n.js).
import ru from '../i18n/ru.js';
import ruGames from '../i18n/ru-games.js';
import ruPlay from '../i18n/ru-play.js';
import ruAccount from '../i18n/ru-account.js';
import ruLearn from '../i18n/ru-learn.js';
import ruMod from '../i18n/ru-mod.js';
import ruAnalysis from '../i18n/ru-analysis.js';
import ruControls from '../i18n/ru-controls.js';
import ruReview from '../i18n/ru-review.js';
import ruErrors from '../i18n/ru-errors.js';

export default {
  ...ru, ...ruGames, ...ruPlay, ...ruAccount, ...ruLearn, ...ruMod, ...ruAnalysis, ...ruControls, ...ruReview, ...ruErrors,
};
