package android.content;

import android.os.Parcelable;
import java.util.HashMap;
import java.util.Map;

/**
 * Stand-in for android.content.Intent (subset used by Bluetooth discovery):
 *   Intent(String action)
 *   String getAction()
 *   Intent putExtra(String name, Parcelable value)
 *   Intent putExtra(String name, String value)
 *   <T extends Parcelable> T getParcelableExtra(String name)              (deprecated in API 33)
 *   <T> T getParcelableExtra(String name, Class<T> clazz)                  (API 33)
 *   String getStringExtra(String name)
 */
public class Intent {
    private final String action;
    private final Map<String, Object> extras = new HashMap<>();

    public Intent(String action) {
        this.action = action;
    }

    public String getAction() {
        return action;
    }

    public Intent putExtra(String name, Parcelable value) {
        extras.put(name, value);
        return this;
    }

    public Intent putExtra(String name, String value) {
        extras.put(name, value);
        return this;
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
