package android.os;

import java.util.HashMap;
import java.util.Map;
import java.util.Set;

/**
 * Stand-in for android.os.Bundle (subset):
 *   Bundle()
 *   void putInt(String key, int value)
 *   int getInt(String key, int defaultValue)
 *   Set&lt;String&gt; keySet()
 *   Object get(String key)                   (deprecated in API 33, still there)
 */
public class Bundle {
    private final Map<String, Object> map = new HashMap<>();

    public Bundle() {}

    public void putInt(String key, int value) {
        map.put(key, Integer.valueOf(value));
    }

    public int getInt(String key, int defaultValue) {
        Object value = map.get(key);
        return value instanceof Integer ? (Integer) value : defaultValue;
    }

    public Set<String> keySet() {
        return map.keySet();
    }

    public Object get(String key) {
        return map.get(key);
    }
}
