package android.location;

import android.bluetooth.Standin;

/**
 * Stand-in for android.location.LocationManager (subset):
 *   boolean isLocationEnabled()     API 28; the system Location switch
 */
public class LocationManager {
    public boolean isLocationEnabled() {
        if (android.os.Build.VERSION.SDK_INT < 28) {
            throw new NoSuchMethodError("android.location.LocationManager.isLocationEnabled");
        }
        return Standin.locationOn();
    }
}
