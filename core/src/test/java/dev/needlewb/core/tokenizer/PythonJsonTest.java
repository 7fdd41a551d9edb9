package dev.needlewb.core.tokenizer;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** Expected strings are what Python 3's json.dumps printed for the same input. */
class PythonJsonTest {
    /** Odd spacing, escapes, astral characters, every number form, NaN and -Infinity. */
    static final String INPUT = """
            [{"name": "caf\\u00e9_\\ud83d\\ude00", "description": "Tab\\there \\"quoted\\" back\\\\slash / \\u007f \\u0001 \\u2028 日本",
              "parameters": {"type": "object", "properties": {"x": {"type": "number", "minimum": 1E2, "maximum": 1.5e300, "multipleOf": 0.1},
              "y": {"default": -0.0, "enum": [1e16, 1e15, 1e-5, 0.0001, 5e-324, 12345678901234567890123, 2.5E-07, NaN, -Infinity, 100, true, false, null]}},
              "required": [], "z": {}}}]
            """;

    @Test
    void compactAndSpacedMatchPython() throws Exception {
        ToolSchemas tools = ToolSchemas.parse(INPUT, "input");
        assertThat(tools.toJson(PythonJson.Separators.COMPACT)).isEqualTo("""
                [{"name":"caf\\u00e9_\\ud83d\\ude00","description":"Tab\\there \\"quoted\\" back\\\\slash / \\u007f \\u0001 \\u2028 \\u65e5\\u672c","parameters":{"type":"object","properties":{"x":{"type":"number","minimum":100.0,"maximum":1.5e+300,"multipleOf":0.1},"y":{"default":-0.0,"enum":[1e+16,1000000000000000.0,1e-05,0.0001,5e-324,12345678901234567890123,2.5e-07,NaN,-Infinity,100,true,false,null]}},"required":[],"z":{}}}]""");
        assertThat(tools.toJson(PythonJson.Separators.SPACED)).isEqualTo("""
                [{"name": "caf\\u00e9_\\ud83d\\ude00", "description": "Tab\\there \\"quoted\\" back\\\\slash / \\u007f \\u0001 \\u2028 \\u65e5\\u672c", "parameters": {"type": "object", "properties": {"x": {"type": "number", "minimum": 100.0, "maximum": 1.5e+300, "multipleOf": 0.1}, "y": {"default": -0.0, "enum": [1e+16, 1000000000000000.0, 1e-05, 0.0001, 5e-324, 12345678901234567890123, 2.5e-07, NaN, -Infinity, 100, true, false, null]}}, "required": [], "z": {}}}]""");
    }

    @Test
    void floatsPrintAsPythonRepr() {
        Object[][] cases = {
            {0x4355d4ec094f48e8L, "2.4580338977940384e+16"},
            {0xc2b9bb741d30b4f2L, "-28292897648820.945"},
            {0x4373a613cdf0f749L, "8.849005675541006e+16"},
            {0x40730103a8e94cc9L, "304.06339350827017"},
            {0xbfb81d6c3438c60fL, "-0.09419895434327706"},
            {0x3cc3e2897d51208eL, "5.519171348714338e-16"},
            {0x456ecea5ad4caf88L, "2.979491062738484e+26"},
            {0xbe726c331367062fL, "-6.862973553954668e-08"},
            {0xbc91d49a56175d69L, "-6.186190443567252e-17"},
            {0xbad273aa625de71bL, "-2.384841659104697e-25"},
            {0x3987fecb270ed3e8L, "1.4788237585620158e-31"},
            {0x3f083dca679a31b1L, "4.623674335588484e-05"},
            {0xc5ac805103af2a06L, "-4.4103526797777933e+27"},
            {0x3ea8a8e6300186c4L, "7.349181885380365e-07"},
            {0xc44273f0c55dbe6fL, "-6.807915752839236e+20"},
            {0xc1c983cda848f3faL, "-856136528.5699456"},
            {0x3b3c65f579d0a49cL, "2.349050409322333e-23"},
            {0xc51856150f2a3399L, "-7.355182915661507e+24"},
            {0xc3e129b3b3a80b1bL, "-9.893737255117838e+18"},
            {0xbbbadf3e4342b87fL, "-5.690376615505354e-21"},
            {0x3d6a34b3af5d6273L, "7.448155308736037e-13"},
            {0xbc1b800d624b3f72L, "-3.726972645300928e-19"},
            {0x4266d4c0983106ceL, "784469377416.2126"},
            {0x3bddafec8acd89f9L, "2.5146039135425545e-20"},
            {0x42d40da2e51c7ff4L, "88195200217599.81"},
            {0xf770c2263266aa3bL, "-2.161466945248611e+267"},
            {0xe4cc4132f7108e96L, "-3.5779800659736107e+177"},
            {0x4c7d6df0621aef57L, "2.9557063470098456e+60"},
            {0x5c76f18a0585a01cL, "2.668197312831474e+137"},
            {0x2a7c18806a375391L, "4.900061288041459e-104"},
            {0x254cb864ef901b93L, "5.179176268068951e-129"},
            {0x10acff0043892dfcL, "2.3906326977211293e-228"},
            {0x4d25deb354f46a69L, "4.498382428028419e+63"},
            {0x9a656aafd1412584L, "-1.6128949952946178e-181"},
            {0x00ddb74d960d5a8fL, "1.692681119672172e-304"},
            {0xad8d194a98921396L, "-2.8569740380009497e-89"},
            {0x568068b9b52a43abL, "4.817178969161639e+108"},
            {0x4f59672710e6d8e6L, "1.795324388442431e+74"},
            {0xd18a669a5af84e6bL, "-6.410999856942676e+84"},
            {0x7b121dc54e5a3a26L, "6.734808094155251e+284"},
            {0x44b52d02c7e14af6L, "1e+23"},
            {0x44b52d02c7e14af6L, "1e+23"},
            {0x0000000000000003L, "1.5e-323"},
            {0x7fefffffffffffffL, "1.7976931348623157e+308"},
            {0x3fd3333333333333L, "0.3"},
            {0x3fe5555555555555L, "0.6666666666666666"},
            {0x419d6f3454000000L, "123456789.0"},
            {0x43118b54f22aeb03L, "1234567890123456.8"},
            {0x4340000000000000L, "9007199254740992.0"},
        };
        for (Object[] c : cases) {
            double x = Double.longBitsToDouble((Long) c[0]);
            assertThat(PythonJson.floatRepr(x)).as("bits %016x", c[0]).isEqualTo(c[1]);
        }
    }
}
