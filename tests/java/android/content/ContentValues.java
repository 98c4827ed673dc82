package android.content;

import java.util.LinkedHashMap;
import java.util.Map;

/** Stand-in for android.content.ContentValues (subset): put(String, String), getAsString. */
public final class ContentValues {
    private final Map<String, Object> values = new LinkedHashMap<>();

    public void put(String key, String value) {
        values.put(key, value);
    }

    public String getAsString(String key) {
        Object value = values.get(key);
        return value == null ? null : value.toString();
    }

    public boolean containsKey(String key) {
        return values.containsKey(key);
    }
}
