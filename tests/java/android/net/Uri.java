package android.net;

import android.os.Parcelable;

/**
 * Stand-in for android.net.Uri (subset): Uri.fromParts(scheme, ssp, fragment),
 * Uri.parse(text), getScheme(), toString(); Parcelable, as on Android (an Intent's
 * EXTRA_STREAM).
 */
public final class Uri implements Parcelable {
    private final String text;

    private Uri(String text) {
        this.text = text;
    }

    public static Uri fromParts(String scheme, String ssp, String fragment) {
        return new Uri(scheme + ":" + ssp + (fragment == null ? "" : "#" + fragment));
    }

    public static Uri parse(String text) {
        return new Uri(text);
    }

    public String getScheme() {
        int colon = text.indexOf(':');
        return colon < 0 ? null : text.substring(0, colon);
    }

    @Override
    public String toString() {
        return text;
    }
}
