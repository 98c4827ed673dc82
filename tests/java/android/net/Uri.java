package android.net;

/** Stand-in for android.net.Uri (subset): Uri.fromParts(scheme, ssp, fragment), toString(). */
public final class Uri {
    private final String text;

    private Uri(String text) {
        this.text = text;
    }

    public static Uri fromParts(String scheme, String ssp, String fragment) {
        return new Uri(scheme + ":" + ssp + (fragment == null ? "" : "#" + fragment));
    }

    @Override
    public String toString() {
        return text;
    }
}
