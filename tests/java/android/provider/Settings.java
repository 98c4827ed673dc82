package android.provider;

/** Stand-in for android.provider.Settings (subset): the screens the app opens. */
public final class Settings {
    private Settings() {}

    public static final String ACTION_APPLICATION_DETAILS_SETTINGS =
            "android.settings.APPLICATION_DETAILS_SETTINGS";
    public static final String ACTION_LOCATION_SOURCE_SETTINGS =
            "android.settings.LOCATION_SOURCE_SETTINGS";
}
