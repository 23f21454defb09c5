package nl.overheid.moz.nmc.profiel;

import static org.assertj.core.api.Assertions.assertThat;

import nl.overheid.moz.nmc.profiel.Identification.Invalid;
import nl.overheid.moz.nmc.profiel.Identification.Type;
import org.junit.jupiter.api.Test;

class IdentificationTest {

    @Test
    void aKvkNumberIsEightDigits() {
        assertThat(Identification.check(Type.KVK, "12345670")).isEmpty();
        assertThat(Identification.check(Type.KVK, "01234567")).isEmpty();
        for (String wrong : new String[] {"1234567", "123456701", "1234567a", "", " 2345670", "１２３４５６７８"}) {
            assertThat(Identification.check(Type.KVK, wrong)).as(wrong).contains(Invalid.LENGTH);
        }
        assertThat(Identification.check(Type.KVK, null)).contains(Invalid.LENGTH);
    }

    @Test
    void rsinAndBsnAreNineDigitsPassingTheElfproef() {
        // 111222333: 9+8+7+12+10+8+9+6-3 = 66, a multiple of 11
        for (Type type : new Type[] {Type.RSIN, Type.BSN}) {
            assertThat(Identification.check(type, "111222333")).isEmpty();
            assertThat(Identification.check(type, "123456782")).isEmpty();
            assertThat(Identification.check(type, "111222334")).contains(Invalid.ELFPROEF);
            assertThat(Identification.check(type, "000000000"))
                    .as("a sum of 0 is not a number")
                    .contains(Invalid.ELFPROEF);
            assertThat(Identification.check(type, "12345678")).contains(Invalid.LENGTH);
            assertThat(Identification.check(type, "1234567890")).contains(Invalid.LENGTH);
        }
    }

    @Test
    void theSealedFormReadsBackAndABareNumberIsAnOlderKvkNumber() {
        Identification bsn = new Identification(Type.BSN, "111222333");
        assertThat(Identification.unsealed(bsn.sealed())).isEqualTo(bsn);
        assertThat(Identification.unsealed("12345670")).isEqualTo(new Identification(Type.KVK, "12345670"));
        assertThat(bsn.toString()).doesNotContain("111222333");
    }
}
