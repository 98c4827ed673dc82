package android.content;

import android.os.Bundle;
import android.os.Parcelable;
import java.util.HashMap;
import java.util.Map;

/**
 * Stand-in for android.content.Intent (subset used by Bluetooth discovery):
 *   Intent(String action)
 *   String getAction()
 *   Intent setData(Uri data), Uri getData()
 *   Intent putExtra(String name, Parcelable value)
 *   Intent putExtra(String name, String value)
 *   Intent putExtra(String name, int value)
 *   Intent putExtra(String name, long value)
 *   Intent putExtra(String name, boolean value)
 *   Intent putExtras(Bundle extras)
 *   int getIntExtra(String name, int defaultValue)      only an int extra, as on Android
 *   <T extends Parcelable> T getParcelableExtra(String name)              (deprecated in API 33)
 *   <T> T getParcelableExtra(String name, Class<T> clazz)                  (API 33)
 *   String getStringExtra(String name)
 */
public class Intent {
    private final String action;
    private final Map<String, Object> extras = new HashMap<>();
    private android.net.Uri data;

    public Intent(String action) {
        this.action = action;
    }

    public String getAction() {
        return action;
    }

    public Intent setData(android.net.Uri data) {
        this.data = data;
        return this;
    }

    public android.net.Uri getData() {
        return data;
    }

    public Intent putExtra(String name, Parcelable value) {
        extras.put(name, value);
        return this;
    }

    public Intent putExtra(String name, String value) {
        extras.put(name, value);
        return this;
    }

    public Intent putExtra(String name, int value) {
        extras.put(name, Integer.valueOf(value));
        return this;
    }

    public Intent putExtra(String name, long value) {
        extras.put(name, Long.valueOf(value));
        return this;
    }

    public Intent putExtra(String name, boolean value) {
        extras.put(name, Boolean.valueOf(value));
        return this;
    }

    public Intent putExtras(Bundle bundle) {
        for (String key : bundle.keySet()) {
            extras.put(key, bundle.get(key));
        }
        return this;
    }

    public Intent putExtras(Intent src) {
        extras.putAll(src.extras);
        return this;
    }

    public int getIntExtra(String name, int defaultValue) {
        Object value = extras.get(name);
        return value instanceof Integer ? (Integer) value : defaultValue;
    }

    @SuppressWarnings("unchecked")
    public <T extends Parcelable> T getParcelableExtra(String name) {
        return (T) extras.get(name);
    }

    public <T> T getParcelableExtra(String name, Class<T> clazz) {
        Object value = extras.get(name);
        return clazz.isInstance(value) ? clazz.cast(value) : null;
    }

    public String getStringExtra(String name) {
        Object value = extras.get(name);
        return value instanceof String ? (String) value : null;
    }
}
