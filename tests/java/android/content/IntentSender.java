package android.content;

/**
 * Stand-in for android.content.IntentSender: only its type matters here (the third
 * argument of Intent.createChooser(Intent, CharSequence, IntentSender), API 22).
 */
public class IntentSender {
}
