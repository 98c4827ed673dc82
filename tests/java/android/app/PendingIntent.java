package android.app;

import android.content.Context;
import android.content.Intent;

/**
 * Stand-in for android.app.PendingIntent (subset). From API 31 a PendingIntent must say
 * FLAG_IMMUTABLE or FLAG_MUTABLE (AOSP PendingIntent.checkPendingIntent: "Targeting S+
 * ... requires that one of FLAG_IMMUTABLE or FLAG_MUTABLE be specified").
 */
public final class PendingIntent {
    public static final int FLAG_UPDATE_CURRENT = 1 << 27;
    public static final int FLAG_IMMUTABLE = 1 << 26;
    public static final int FLAG_MUTABLE = 1 << 25;

    private final Intent intent;
    private final int flags;

    private PendingIntent(Intent intent, int flags) {
        this.intent = intent;
        this.flags = flags;
    }

    public static PendingIntent getActivity(Context context, int requestCode, Intent intent, int flags) {
        if (android.os.Build.VERSION.SDK_INT >= 31 && (flags & (FLAG_IMMUTABLE | FLAG_MUTABLE)) == 0) {
            throw new IllegalArgumentException(context.getPackageName()
                    + ": Targeting S+ (version 31 and above) requires that one of FLAG_IMMUTABLE"
                    + " or FLAG_MUTABLE be specified when creating a PendingIntent.");
        }
        return new PendingIntent(intent, flags);
    }

    public Intent standinIntent() {
        return intent;
    }

    public int standinFlags() {
        return flags;
    }
}
