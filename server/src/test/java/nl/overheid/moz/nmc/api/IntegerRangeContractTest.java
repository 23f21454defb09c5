package nl.overheid.moz.nmc.api;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.BigIntegerNode;
import java.math.BigInteger;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * Every integer a client sends in a request body, in every contract the NMC serves or reads, has a {@code maximum}
 * its format holds, so a number beyond it is a 400 from the schema: the validator does not check {@code int32} or
 * {@code int64}, and binding such a number to the generated model then failed as a 500 (found by a second read:
 * {@code huidigeEpoch} 2147483648, {@code taken} [9223372036854775808]). A new integer without one fails here.
 */
class IntegerRangeContractTest {

    @Test
    void everyIntegerOfEveryRequestBodyHasAMaximumItsFormatHolds() {
        int checked = 0;
        for (var contract : ControlCharacterContractTest.requestContracts()) {
            JsonNode document = contract.getKey();
            for (String component : ControlCharacterContractTest.requestComponents(document)) {
                for (Map.Entry<String, JsonNode> integer : ControlCharacterContractTest.schemas(
                        component,
                        ControlCharacterContractTest.components(document).get(component),
                        schema -> schema.path("type").asText().equals("integer"))) {
                    String location = integer.getKey();
                    JsonNode schema = integer.getValue();
                    BigInteger largest = schema.path("format").asText().equals("int32")
                            ? BigInteger.valueOf(Integer.MAX_VALUE)
                            : BigInteger.valueOf(Long.MAX_VALUE);
                    assertThat(schema.has("maximum"))
                            .as("%s has a maximum", location)
                            .isTrue();
                    assertThat(schema.path("maximum").bigIntegerValue())
                            .as("the maximum of %s", location)
                            .isLessThanOrEqualTo(largest);
                    assertThat(contract.getValue()
                                    .validate(location, BigIntegerNode.valueOf(largest.add(BigInteger.ONE))))
                            .as("%s refuses a number beyond its format", location)
                            .isNotEmpty();
                    checked++;
                }
            }
        }
        assertThat(checked).as("integers checked").isGreaterThan(5);
    }
}
